// Exact order of rationals through a floating-point filter (as CGAL's filtered predicates): two
// values whose double enclosures are disjoint are ordered by their doubles, any others exactly.
#pragma once
#include <cstddef>
#include <vector>

#include "seqi/numbers/rational.hpp"
#include "seqi/numbers/upward.hpp"

namespace seqi {

// The indices of t sorted by increasing exact value, ties in increasing index: the same
// permutation as a stable sort by exact comparison, whatever the doubles say.
std::vector<std::size_t> increasing_order(const std::vector<Rational>& t);

// The double enclosure (mid_rad) of each value, for filtered_compare (sets the rounding itself).
std::vector<MidRad> enclosures(const std::vector<Rational>& values);

// The sign of a - b (-1, 0, 1), exact: by the enclosures ea of a and eb of b when they are
// apart by more than twice their radii (which covers the rounding of this test, in any rounding
// mode), otherwise by comparing a and b.
int filtered_compare(const Rational& a, const MidRad& ea, const Rational& b, const MidRad& eb);

}  // namespace seqi
