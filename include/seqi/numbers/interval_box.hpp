// Boxes of outward-rounded MPFI intervals (one interval per coordinate) and the few
// operations the general enclosures need. Every result contains the exact real result for
// every real input in the operands (lem:affine-enclosure).
#pragma once
#include <optional>
#include <vector>

#include "seqi/numbers/interval.hpp"

namespace seqi {

using IntervalBox = std::vector<Interval>;

// The exact point x enclosed coordinatewise at the given precision.
IntervalBox box_of(const Point& x, unsigned precision_bits);

// sum_k a_k x_k with exact a: each x_k enters once, so the range is tight up to rounding.
Interval dot(const Point& a, const IntervalBox& x);
// sum_k a_k b_k for interval a, b.
Interval dot(const IntervalBox& a, const IntervalBox& b);

// Smallest interval (box) holding both operands.
Interval hull(const Interval& a, const Interval& b);
IntervalBox hull(const IntervalBox& a, const IntervalBox& b);

// x intersected with [lo, hi]; nullopt when empty.
std::optional<Interval> intersect(const Interval& x, const Rational& lo, const Rational& hi);

// Exact rational midpoint of each coordinate.
Point midpoint(const IntervalBox& b);

// Largest upper - lower over the coordinates (0 for an empty box).
Rational max_width(const IntervalBox& b);

}  // namespace seqi
