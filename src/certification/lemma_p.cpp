#include "seqi/certification/lemma_p.hpp"

#include <algorithm>
#include <variant>

#include "seqi/core/sharding.hpp"

namespace seqi {
namespace {

std::string where(std::size_t j, std::size_t token_in_seq) {
  return "sequence " + std::to_string(j + 1) + ", token " + std::to_string(token_in_seq + 1);
}

// Leader flags per token, and a check that each leader stands at its place and every place
// lies in span(e1, e2). Returns an error message or "".
std::string leaders_in_place(const TokenState& c, const PlacementRecord& p, std::vector<bool>& is_leader) {
  is_leader.assign(c.tokens.size(), false);
  for (std::size_t j = 0; j < c.sequences(); ++j)
    for (std::size_t l = 0; l < p.leaders[j].size(); ++l) {
      const std::size_t i = p.leaders[j][l];
      is_leader[i] = true;
      if (!equal_points(c.tokens[i], p.placed[j][l]))
        return where(j, i - c.begin[j]) + ": leader " + std::to_string(l + 1) + " is not at its place";
      for (Eigen::Index k = 2; k < p.placed[j][l].size(); ++k)
        if (p.placed[j][l][k] != 0) return where(j, i - c.begin[j]) + ": place not in span(e1, e2)";
    }
  return "";
}

Rational spread_of(const TokenState& c, std::size_t j, const Point& a) {
  Rational lo = dot(a, c.tokens[c.begin[j]]), hi = lo;
  for (std::size_t i = c.begin[j]; i < c.begin[j + 1]; ++i) {
    Rational s = dot(a, c.tokens[i]);
    lo = std::min(lo, s);
    hi = std::max(hi, s);
  }
  return hi - lo;
}

LemmaPResult failed(std::string why) {
  LemmaPResult r;
  r.failure = std::move(why);
  return r;
}

void keep_min(std::optional<Rational>& m, const Rational& x) {
  if (!m || x < *m) m = x;
}

// The certified margin of one sequence for A = I (nullopt when n_j = 1), or why it fails.
using MarginOrFailure = std::variant<std::optional<Rational>, std::string>;

// Leaders in place, the claimed attention (leader 1 for non-leaders, itself for leaders),
// then each sequence's margin (scaled by alpha > 0) and spread, sequences on exec.threads
// threads; the first failing sequence (in order) is reported, whatever the thread count.
template <class MarginOf>
LemmaPResult check_each_sequence(const TokenState& c, const PlacementRecord& p, const Rational& alpha, const Point& a,
                                 const Execution& exec, MarginOf margin_of) {
  std::vector<bool> is_leader;
  if (auto why = leaders_in_place(c, p, is_leader); !why.empty()) return failed(why);
  LemmaPResult res;
  res.attends.resize(c.tokens.size());
  for (std::size_t j = 0; j < c.sequences(); ++j)
    for (std::size_t i = c.begin[j]; i < c.begin[j + 1]; ++i) res.attends[i] = is_leader[i] ? i : p.leaders[j][0];
  std::vector<MarginOrFailure> margin(c.sequences());
  res.spread.resize(c.sequences());
  for_each_index_shared(
      c.sequences(), exec,
      [&](std::size_t j) {
        margin[j] = margin_of(j, is_leader, res.attends);
        res.spread[j] = spread_of(c, j, a);
        progress_advance(exec.progress);
      },
      [&](ByteWriter& w, std::size_t j) {
        w.put(margin[j].index() == 1);
        if (auto* why = std::get_if<std::string>(&margin[j])) w.put(std::string_view(*why));
        else w.put(std::get<std::optional<Rational>>(margin[j]));
        w.put(res.spread[j]);
      },
      [&](ByteReader& r, std::size_t j) {
        if (r.flag()) margin[j] = MarginOrFailure(std::in_place_index<1>, r.string());
        else margin[j] = r.optional_rational();
        res.spread[j] = r.rational();
      });
  for (auto& m : margin) {
    if (auto* why = std::get_if<std::string>(&m)) return failed(*why);
    auto& G = std::get<std::optional<Rational>>(m);
    if (G) *G *= alpha;
    res.margin.push_back(std::move(G));
  }
  res.ok = true;
  return res;
}

}  // namespace

LemmaPResult check_lemma_p(const TokenState& c, const PlacementRecord& p, const Rational& alpha, const Point& a,
                           const Execution& exec) {
  return check_each_sequence(
      c, p, alpha, a, exec,
      [&](std::size_t j, const std::vector<bool>& is_leader, const std::vector<std::size_t>&) -> MarginOrFailure {
        const Point& P1 = p.placed[j][0];
        std::vector<std::size_t> others;  // non-leaders
        for (std::size_t i = c.begin[j]; i < c.begin[j + 1]; ++i)
          if (!is_leader[i]) others.push_back(i);
        // Extremes over non-leaders x: M = max |x|^2, range of x_1, max |x_2|.
        Rational M = 0, x1_lo = 0, x1_hi = 0, x2_abs = 0, best_with_P1;
        for (std::size_t k = 0; k < others.size(); ++k) {
          const Point& x = c.tokens[others[k]];
          M = k ? std::max(M, norm_sq(x)) : norm_sq(x);
          x1_lo = k ? std::min(x1_lo, x[0]) : x[0];
          x1_hi = k ? std::max(x1_hi, x[0]) : x[0];
          x2_abs = std::max(x2_abs, abs(x[1]));
        }
        // Circle leaders, in angular order (by second coordinate: they lie on a left half-circle).
        std::vector<Point> circle(p.placed[j].begin() + 1, p.placed[j].end());
        std::sort(circle.begin(), circle.end(), [](const Point& u, const Point& w) { return u[1] < w[1]; });
        Rational c1_lo = 0, c1_hi = 0, c2_abs = 0;
        for (std::size_t l = 0; l < circle.size(); ++l) {
          if (circle[l][0] >= 0 || norm_sq(circle[l]) != norm_sq(circle[0]))
            return MarginOrFailure(std::in_place_index<1>, "sequence " + std::to_string(j + 1) +
                                                               ": circle leaders not on one left half-circle");
          c1_lo = l ? std::min(c1_lo, circle[l][0]) : circle[l][0];
          c1_hi = l ? std::max(c1_hi, circle[l][0]) : circle[l][0];
          c2_abs = std::max(c2_abs, abs(circle[l][1]));
        }
        std::optional<Rational> G;
        // Non-leaders: <x, P1> beats (|x|^2 + M)/2 >= <x, x_l> and the circle-leader bound.
        for (std::size_t k = 0; k < others.size(); ++k) {
          const Point& x = c.tokens[others[k]];
          const Rational s1 = dot(x, P1);
          best_with_P1 = k ? std::max(best_with_P1, s1) : s1;
          Rational rival = (norm_sq(x) + M) / 2;
          if (!circle.empty()) rival = std::max(rival, x[0] * (x[0] >= 0 ? c1_hi : c1_lo) + abs(x[1]) * c2_abs);
          if (s1 <= rival)
            return MarginOrFailure(
                std::in_place_index<1>,
                where(j, others[k] - c.begin[j]) + ": score with leader 1 does not beat the bound " + to_string(rival));
          keep_min(G, s1 - rival);
        }
        // Leader 1: its own score beats every non-leader's and every circle leader's exactly.
        std::optional<Rational> rival1;
        if (!others.empty()) rival1 = best_with_P1;
        for (const auto& Pl : circle) rival1 = std::max(rival1.value_or(dot(P1, Pl)), dot(P1, Pl));
        if (rival1) {
          if (norm_sq(P1) <= *rival1)
            return MarginOrFailure(std::in_place_index<1>,
                                   where(j, p.leaders[j][0] - c.begin[j]) + ": leader 1 not its own best");
          keep_min(G, norm_sq(P1) - *rival1);
        }
        // Circle leaders: non-leader bound, leader 1 exactly, angular neighbours (lem:circle-neighbours).
        for (std::size_t l = 0; l < circle.size(); ++l) {
          const Point& Pl = circle[l];
          Rational rival = dot(Pl, P1);
          if (!others.empty()) rival = std::max(rival, Pl[0] * (Pl[0] < 0 ? x1_lo : x1_hi) + abs(Pl[1]) * x2_abs);
          if (l > 0) rival = std::max(rival, dot(Pl, circle[l - 1]));
          if (l + 1 < circle.size()) rival = std::max(rival, dot(Pl, circle[l + 1]));
          if (norm_sq(Pl) <= rival)
            return MarginOrFailure(std::in_place_index<1>, "sequence " + std::to_string(j + 1) + ": circle leader " +
                                                               std::to_string(l + 2) + " not its own best");
          keep_min(G, norm_sq(Pl) - rival);
        }
        return G;
      });
}

LemmaPResult check_lemma_p_brute(const TokenState& c, const PlacementRecord& p, const Rational& alpha, const Point& a,
                                 const Execution& exec) {
  return check_each_sequence(
      c, p, alpha, a, exec,
      [&](std::size_t j, const std::vector<bool>&, const std::vector<std::size_t>& attends) -> MarginOrFailure {
        std::optional<Rational> G;
        for (std::size_t i = c.begin[j]; i < c.begin[j + 1]; ++i) {
          const std::size_t claimed = attends[i];
          const Rational best = dot(c.tokens[i], c.tokens[claimed]);
          for (std::size_t l = c.begin[j]; l < c.begin[j + 1]; ++l) {
            if (l == claimed) continue;
            const Rational s = dot(c.tokens[i], c.tokens[l]);
            if (s >= best)
              return MarginOrFailure(std::in_place_index<1>, where(j, i - c.begin[j]) + ": token " +
                                                                 std::to_string(l - c.begin[j] + 1) +
                                                                 " scores at least as high as the claimed leader");
            keep_min(G, best - s);
          }
        }
        return G;
      });
}

}  // namespace seqi
