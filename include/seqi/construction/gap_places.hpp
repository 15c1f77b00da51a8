// Axis places moved into a gap between the shrunk tokens' readings (lem:gap-places in
// proofs/gap-places.tex): every place reads one dyadic value pi strictly between two shrunk
// tokens near their median; leaders reading above pi are placed by hats rising along r, the
// others by mirrored hats, so each hat's active side holds about half as many tokens.
#pragma once
#include <cstddef>
#include <optional>
#include <vector>

#include "seqi/numbers/rational.hpp"

namespace seqi {

// The placement reading of lem:gap-places from a drawn direction w (d >= 2, |w_i| <= 1):
// r = (w_1 / 256, -1, w_3 / 2, ..., w_d / 2). The axis places R e1 (9 <= R < 18) then read
// within 18/256 of 0, and P + (r.P - pi) e2 reads pi (r_2 = -1: dyadic offsets), less than 2
// away from P when |pi| < 1.
Point gap_reading(const Point& drawn);

// The dyadic of fewest bits strictly inside (a, b), a < b; unique (0 when a < 0 < b).
Rational shortest_dyadic_between(const Rational& a, const Rational& b);

// pi of lem:gap-places for the shrunk readings `shrunk` (a copy: reordered), strictly inside
// (-bound, bound) and equal to none of them: in the widest gap between consecutive readings among
// the middle fifth in sorted order (positions floor(2n/5) to min(n, max(floor(2n/5) + 2, ceil(3n/5))) - 1;
// the lowest gap on ties), clipped to (-bound, bound); when none of those meets it, in the gap
// (the two unbounded ones included) nearest the middle position that does. In the chosen gap the
// shortest dyadic of its middle half. nullopt only when there is no reading or bound <= 0.
std::optional<Rational> split_reading(std::vector<Rational> shrunk, const Rational& bound);

// Places P + ((pi - r.P) / r_2) e2: each reads pi along r and stays in span(e1, e2) when P does.
// Precondition: r_2 != 0.
std::vector<Point> places_reading(const std::vector<Point>& places, const Point& r, const Rational& pi);

// The hat order of lem:gap-places from the placement order `decreasing` (leaders by decreasing
// reading; the first is the shrink layer's leader) and each leader's shrunk reading (none equal
// to pi): the first leader, then every other leader reading above pi in decreasing order, then
// those reading below pi in increasing order. mirrored[k]: leader k's hat reads -r (every leader
// below pi but the first).
struct GapOrder {
  std::vector<std::size_t> order;
  std::vector<bool> mirrored;
};
GapOrder gap_hat_order(const std::vector<std::size_t>& decreasing, const std::vector<Rational>& shrunk_leader,
                       const Rational& pi);

}  // namespace seqi
