// Exact sums of many rationals by pairwise (tree) summation.
#pragma once
#include <vector>

#include "seqi/numbers/rational.hpp"

namespace seqi {

// The exact sum of `terms` (0 when empty). Adjacent terms are added in rounds, so every term
// takes part in O(log n) additions whose operands have the size of a subtree's sum: O(n log n)
// in total, where adding left to right costs O(n) per term once the running sum's denominator
// has grown with n (about 3x the time for 2x the blocks of an inpaint model before).
Rational exact_sum(std::vector<Rational> terms);

}  // namespace seqi
