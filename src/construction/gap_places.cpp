// lem:gap-places: the split reading pi, the places moved onto it, and the two-sided hat order.
#include "seqi/construction/gap_places.hpp"

#include <algorithm>
#include <utility>

#include "seqi/numbers/dyadic.hpp"

namespace seqi {

namespace {

// floor(x) for x >= 0.
Integer floor_nonnegative(const Rational& x) { return numerator(x) / denominator(x); }

using Gap = std::pair<Rational, Rational>;

// (a, b) clipped to (-bound, bound) (an absent end is infinite), when that is not empty.
std::optional<Gap> clipped(const Rational* a, const Rational* b, const Rational& bound) {
  Rational lo = -bound, hi = bound;
  if (a && *a > lo) lo = *a;
  if (b && *b < hi) hi = *b;
  if (!(lo < hi)) return std::nullopt;
  return Gap{std::move(lo), std::move(hi)};
}

}  // namespace

Point gap_reading(const Point& drawn) {
  Point r = drawn / 2;
  r[0] = drawn[0] / 256;
  r[1] = -1;
  return r;
}

Rational shortest_dyadic_between(const Rational& a, const Rational& b) {
  if (a < 0 && b > 0) return 0;
  if (b <= 0) return -shortest_dyadic_between(-b, -a);
  // 0 <= a < b. Level k has the multiples of 2^-k; the first level tried has 2^-k > b, so no
  // positive multiple below b. At the least level with a hit the hit is unique (two hits enclose an
  // even multiple, a hit one level up), so the result is well defined.
  for (long k = -floor_log2(b) - 1;; ++k) {
    const Rational unit = pow2(-k);
    Rational m = Rational(floor_nonnegative(a / unit) + 1) * unit;
    if (m < b) return m;
  }
}

std::optional<Rational> split_reading(std::vector<Rational> shrunk, const Rational& bound) {
  const std::size_t n = shrunk.size();
  if (n == 0 || !(bound > 0)) return std::nullopt;
  std::optional<Gap> best;
  // The middle fifth in sorted order, positions [lo, hi): its widest gap (lowest on ties).
  const std::size_t lo = 2 * n / 5, hi = std::min(n, std::max(lo + 2, (3 * n + 4) / 5));
  std::nth_element(shrunk.begin(), shrunk.begin() + static_cast<long>(lo), shrunk.end());
  std::partial_sort(shrunk.begin() + static_cast<long>(lo), shrunk.begin() + static_cast<long>(hi), shrunk.end());
  for (std::size_t i = lo; i + 1 < hi; ++i) {
    auto g = clipped(&shrunk[i], &shrunk[i + 1], bound);
    if (g && (!best || g->second - g->first > best->second - best->first)) best = std::move(g);
  }
  if (!best) {  // every gap, the two unbounded ones included: the one nearest the middle position
    std::sort(shrunk.begin(), shrunk.end());
    std::size_t best_distance = 0;
    for (std::size_t k = 0; k <= n; ++k) {  // gap k lies between positions k - 1 and k
      auto g = clipped(k > 0 ? &shrunk[k - 1] : nullptr, k < n ? &shrunk[k] : nullptr, bound);
      const std::size_t distance = 2 * k > n ? 2 * k - n : n - 2 * k;
      if (g && (!best || distance < best_distance)) best = std::move(g), best_distance = distance;
    }
  }
  const Rational quarter = (best->second - best->first) / 4;  // a gap always exists: (-bound, bound) is not finite
  return shortest_dyadic_between(best->first + quarter, best->second - quarter);
}

std::vector<Point> places_reading(const std::vector<Point>& places, const Point& r, const Rational& pi) {
  std::vector<Point> out;
  out.reserve(places.size());
  for (const auto& p : places) {
    out.push_back(p);
    out.back()[1] += (pi - dot(r, p)) / r[1];
  }
  return out;
}

GapOrder gap_hat_order(const std::vector<std::size_t>& decreasing, const std::vector<Rational>& shrunk_leader,
                       const Rational& pi) {
  GapOrder g{{}, std::vector<bool>(shrunk_leader.size(), false)};
  if (decreasing.empty()) return g;
  g.order.push_back(decreasing[0]);  // the shrink layer's leader, whichever side it reads
  std::vector<std::size_t> below;
  for (std::size_t s = 1; s < decreasing.size(); ++s) {
    const std::size_t k = decreasing[s];
    if (shrunk_leader[k] > pi) g.order.push_back(k);
    else below.push_back(k), g.mirrored[k] = true;
  }
  g.order.insert(g.order.end(), below.rbegin(), below.rend());  // increasing reading
  return g;
}

}  // namespace seqi
