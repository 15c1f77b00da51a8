// Phase S (lem:distinct-means, lem:separation): afterwards all tokens of all sequences are
// pairwise distinct points.
#include <algorithm>
#include <string>
#include <tuple>

#include "seqi/construction/conditioning_choice.hpp"
#include "seqi/construction/construction.hpp"
#include "seqi/construction/hat_margin.hpp"
#include "seqi/construction/hats.hpp"
#include "seqi/construction/isolation.hpp"
#include "seqi/construction/separating_shift.hpp"
#include "seqi/core/parallel.hpp"
#include "seqi/core/point_groups.hpp"
#include "seqi/numbers/dyadic.hpp"
#include "seqi/numbers/point_set.hpp"

namespace seqi {
namespace {

// Groups of token indices holding one point that lies in two or more sequences (H1: a
// point occurs at most once per sequence, so a group of size >= 2 spans >= 2 sequences),
// in lexicographic order of the points.
std::vector<std::vector<std::size_t>> shared_points(const TokenState& c, unsigned threads) {
  return equal_point_groups(c.tokens, threads);
}

// The mean of each sequence's tokens (sequences on `threads` threads).
std::vector<Point> sequence_means(const TokenState& c, unsigned threads = 1) {
  std::vector<Point> mu(c.sequences());
  for_each_index(c.sequences(), threads, [&](std::size_t j) {  // in place, zero terms skipped
    Point s = Point::Zero(c.tokens.front().size());
    for (std::size_t i = c.begin[j]; i < c.begin[j + 1]; ++i)
      for (Eigen::Index k = 0; k < s.size(); ++k)
        if (!c.tokens[i][k].is_zero()) s[k] += c.tokens[i][k];
    const Rational n(static_cast<long>(c.size_of(j)));
    for (Eigen::Index k = 0; k < s.size(); ++k)
      if (!s[k].is_zero()) s[k] /= n;
    mu[j] = std::move(s);
  });
  return mu;
}

std::size_t count_distinct(const std::vector<Point>& pts) { return as_sorted_set(pts).size(); }

// Two sequences that share a token and have equal exact means, if any.
std::optional<std::pair<std::size_t, std::size_t>> equal_mean_sharing_pair(
    const std::vector<std::vector<std::size_t>>& groups, const std::vector<std::size_t>& owner,
    const std::vector<Point>& mu) {
  for (const auto& g : groups) {
    std::vector<Point> means;
    for (std::size_t i : g) means.push_back(mu[owner[i]]);
    if (auto pair = find_equal_pair(means)) return std::pair{owner[g[pair->first]], owner[g[pair->second]]};
  }
  return std::nullopt;
}

std::vector<Point> tokens_of(const TokenState& c, std::size_t j) {
  return {c.tokens.begin() + static_cast<std::ptrdiff_t>(c.begin[j]),
          c.tokens.begin() + static_cast<std::ptrdiff_t>(c.begin[j + 1])};
}

// A point of X_j not in X_k or of X_k not in X_j; exists since X_j != X_k as sets (H3).
Point point_in_symmetric_difference(const TokenState& c, std::size_t j, std::size_t k) {
  auto sj = as_sorted_set(tokens_of(c, j)), sk = as_sorted_set(tokens_of(c, k));
  for (const auto& p : sj)
    if (!set_contains(sk, p)) return p;
  for (const auto& p : sk)
    if (!set_contains(sj, p)) return p;
  throw ConstructionError("sequences " + std::to_string(j + 1) + " and " + std::to_string(k + 1) +
                          " have equal token sets (H3 violated)");
}

// One lift: a hat moving the point q by e in every sequence holding it (lem:distinct-means);
// returns its move (the block holds hat_layer of it).
HatMove lift_one_point(TokenState& c, const Point& q, Rng& rng, Construction& out) {
  const int d = static_cast<int>(q.size());
  const std::size_t k = out.record.separation.lifts + 1;
  // Reading with small dyadic entries; among candidates the largest relative isolation
  // delta / max |r.(x - q)| wins (lem:dyadic-directions, lem:relative-window).
  Point r;
  Rational delta;
  std::vector<std::pair<Point, Rational>> kept;
  choose_best_conditioned("lift " + std::to_string(k) + " reading direction", "relative isolation", 4, Integer(1) << 20,
                          [&](const Integer& range) -> std::optional<Rational> {
    r = dyadic_direction(rng, d, static_cast<int>(boost::multiprecision::msb(range)));
    auto gap = isolation_gap(r, c.tokens, q);
    if (!gap) return std::nullopt;
    delta = hat_half_width_with_margin(*gap);  // lem:hat-margin
    const Rational tq = dot(r, q);
    Rational reach = delta;
    for (const auto& x : c.tokens) reach = std::max(reach, Rational(abs(dot(r, x) - tq)));
    return delta / reach;
  }, [&](int) { kept.emplace_back(r, delta); },
     [&](int i) { std::tie(r, delta) = kept[static_cast<std::size_t>(i)]; }, out.record.choices);

  const auto points = as_sorted_set(c.tokens);
  const auto mu = sequence_means(c);
  const auto owner = c.owners();
  const std::size_t distinct_before = count_distinct(mu);
  Point e;
  choose_generic("lift " + std::to_string(k) + " displacement", 4, [&](const Integer& range) {
    e = rng.integer_vector(d, range);
    if (e.isZero() || set_contains(points, Point(q + e))) return false;
    auto moved = mu;
    for (std::size_t i = 0; i < c.tokens.size(); ++i)
      if (equal_points(c.tokens[i], q))
        moved[owner[i]] += e / Rational(static_cast<long>(c.size_of(owner[i])));
    return count_distinct(moved) > distinct_before;
  }, out.record.choices);

  for (auto& x : c.tokens)
    if (equal_points(x, q)) x += e;
  HatMove move{r, dot(r, q), delta, e};
  out.model.blocks.push_back({SelfAttention<Rational>::identity(), move_layer(move, false), Phase::separation});
  ++out.record.separation.lifts;
  return move;
}

}  // namespace

std::vector<std::optional<Separation>> build_separation(TokenState& c, Rng& rng, Construction& out, unsigned threads,
                                                        const std::vector<int>& halvings) {
  auto groups = shared_points(c, threads);
  if (groups.empty()) return {Separation{SelfAttention<Rational>::identity(), {}, {}, {}}};
  const auto owner = c.owners();
  auto mu = sequence_means(c, threads);
  std::vector<HatMove> lifts;
  while (const auto pair = equal_mean_sharing_pair(groups, owner, mu)) {
    lifts.push_back(lift_one_point(c, point_in_symmetric_difference(c, pair->first, pair->second), rng, out));
    groups = shared_points(c, threads);
    mu = sequence_means(c, threads);
  }
  out.record.separation.shift_used = true;
  std::vector<Rational> s(mu.size());
  // Shift x -> x + v (f . mean_j): all tokens pairwise distinct afterwards (lem:separation).
  const int d = static_cast<int>(c.tokens.front().size());
  Point f, v;
  const SeparatingShift shift_of(c.tokens, owner, mu, threads);  // reads c.tokens, unchanged from here
  choose_generic("shift (f, v)", 4, [&](const Integer& range) {
    f = rng.integer_vector(d, range);
    v = rng.integer_vector(d, Integer(4));  // only f must widen to separate the means (lem:shift-size)
    return !v.isZero() && shift_of.separates(f, v);
  }, out.record.choices);
  for_each_index(mu.size(), threads, [&](std::size_t j) { s[j] = dot(f, mu[j]); });
  std::vector<std::optional<Separation>> sizes;
  for (int h : halvings) {
    const Point vh = v * pow2(-h);  // a smaller shift of the same direction (rem:shift-sizes)
    if (h > 0 && !shift_of.separates(f, vh)) {
      sizes.emplace_back();
      continue;
    }
    Separation sep{SelfAttention<Rational>::identity(), vh, s, lifts};
    sep.shift.V = StructuredMatrix<Rational>::rank_one(vh, f);
    sizes.emplace_back(std::move(sep));
  }
  return sizes;
}

}  // namespace seqi
