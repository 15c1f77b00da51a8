// Enclosures of softmax attention weights pi_l = exp(t_l) / sum_m exp(t_m) (lem:softmax-weights).
#pragma once
#include <optional>
#include <vector>

#include "seqi/numbers/interval_box.hpp"

namespace seqi {

// Exact weights when they are rational: all scores equal (uniform 1/n; n = 1 gives 1).
// nullopt otherwise (distinct exact scores give irrational weights).
std::optional<std::vector<Rational>> exact_softmax_weights(const std::vector<Rational>& scores);

// Enclosures of the weights for exact scores s_l at temperature tau: t_l = (s_l - max s)/tau
// is exact, each weight is 1 / (1 + R_l / e_l) with e_l = exp(t_l), R_l = sum_{m != l} e_m.
std::vector<Interval> softmax_weights(const std::vector<Rational>& scores, const Rational& tau,
                                      unsigned precision_bits);

// Enclosures of the weights when each score is only known to lie in an interval. Each
// weight is monotone in its own exponential and in the sum of the others, so the formula
// above, evaluated with each e_l once, is a valid enclosure; intersected with [0, 1].
std::vector<Interval> softmax_weights(const std::vector<Interval>& scores, const Rational& tau);

}  // namespace seqi
