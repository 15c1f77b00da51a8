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
std::vector<std::vector<std::size_t>> shared_points(const LiftedInputs& c) {
  return equal_point_groups(c.size(), c.residues(), [&](std::size_t i) { return c.token(i); });
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

// A point of X_j not in X_k or of X_k not in X_j; exists since X_j != X_k as sets (H3).
Point point_in_symmetric_difference(const LiftedInputs& c, std::size_t j, std::size_t k) {
  auto sj = as_sorted_set(c.tokens_of(j)), sk = as_sorted_set(c.tokens_of(k));
  for (const auto& p : sj)
    if (!set_contains(sk, p)) return p;
  for (const auto& p : sk)
    if (!set_contains(sj, p)) return p;
  throw ConstructionError("sequences " + std::to_string(j + 1) + " and " + std::to_string(k + 1) +
                          " have equal token sets (H3 violated)");
}

// One lift: a hat moving the point q by e in every sequence holding it (lem:distinct-means);
// returns its move (the block holds hat_layer of it). Readings on `threads` threads.
HatMove lift_one_point(LiftedInputs& c, const Point& q, Rng& rng, Construction& out, unsigned threads) {
  const int d = static_cast<int>(q.size());
  const std::size_t k = out.record.separation.lifts + 1;
  const std::vector<std::size_t> at_q = c.indices_of(q);
  // Reading with small dyadic entries; among candidates the largest relative isolation
  // delta / max |r.(x - q)| wins (lem:dyadic-directions, lem:relative-window).
  Point r;
  Rational delta;
  std::vector<std::pair<Point, Rational>> kept;
  choose_best_conditioned("lift " + std::to_string(k) + " reading direction", "relative isolation", 4, Integer(1) << 20,
                          [&](const Integer& range) -> std::optional<Rational> {
    r = dyadic_direction(rng, d, static_cast<int>(boost::multiprecision::msb(range)));
    const auto t = c.readings(r, threads);
    const Rational tq = dot(r, q);
    const auto gap = isolation_gap(t, tq, [&](std::size_t i) { return std::binary_search(at_q.begin(), at_q.end(), i); });
    if (!gap) return std::nullopt;
    delta = hat_half_width_with_margin(*gap);  // lem:hat-margin
    Rational reach = delta;
    for (const auto& ti : t) reach = std::max(reach, Rational(abs(ti - tq)));
    return delta / reach;
  }, [&](int) { kept.emplace_back(r, delta); },
     [&](int i) { std::tie(r, delta) = kept[static_cast<std::size_t>(i)]; }, out.record.choices);

  const auto mu = c.means(threads);
  const auto& owner = c.owners();
  const std::size_t distinct_before = count_distinct(mu);
  Point e;
  choose_generic("lift " + std::to_string(k) + " displacement", 4, [&](const Integer& range) {
    e = rng.integer_vector(d, range);
    if (e.isZero() || !c.indices_of(Point(q + e)).empty()) return false;
    auto moved = mu;
    for (std::size_t i : at_q) moved[owner[i]] += e / Rational(static_cast<long>(c.layout().size_of(owner[i])));
    return count_distinct(moved) > distinct_before;
  }, out.record.choices);

  for (std::size_t i : at_q) c.move(i, q + e);
  HatMove move{r, dot(r, q), delta, e};
  out.model.blocks.push_back({SelfAttention<Rational>::identity(), move_layer(move, false), Phase::separation});
  ++out.record.separation.lifts;
  return move;
}

}  // namespace

std::vector<std::optional<Separation>> build_separation(LiftedInputs& c, Rng& rng, Construction& out, unsigned threads,
                                                        const std::vector<int>& halvings) {
  auto groups = shared_points(c);
  if (groups.empty()) return {Separation{SelfAttention<Rational>::identity(), {}, {}, {}}};
  const auto& owner = c.owners();
  auto mu = c.means(threads);
  std::vector<HatMove> lifts;
  while (const auto pair = equal_mean_sharing_pair(groups, owner, mu)) {
    lifts.push_back(lift_one_point(c, point_in_symmetric_difference(c, pair->first, pair->second), rng, out, threads));
    groups = shared_points(c);
    mu = c.means(threads);
  }
  out.record.separation.shift_used = true;
  std::vector<Rational> s(mu.size());
  // Shift x -> x + v (f . mean_j): all tokens pairwise distinct afterwards (lem:separation).
  const int d = static_cast<int>(mu.front().size());
  Point f, v;
  const SeparatingShift shift_of(c.size(), [&](std::size_t i) { return c.token(i); }, c.residues(), owner, mu,
                                 threads);  // reads c, unchanged from here
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
