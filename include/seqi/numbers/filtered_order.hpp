// Exact order of rationals through a floating-point filter (as CGAL's filtered predicates): two
// values whose double enclosures are disjoint are ordered by their doubles, any others exactly.
#pragma once
#include <cstddef>
#include <vector>

#include "seqi/numbers/rational.hpp"

namespace seqi {

// The indices of t sorted by increasing exact value, ties in increasing index: the same
// permutation as a stable sort by exact comparison, whatever the doubles say.
std::vector<std::size_t> increasing_order(const std::vector<Rational>& t);

}  // namespace seqi
