// Outward-rounded enclosures of softmax attention on exact rational scores.
#pragma once
#include <utility>
#include <vector>

#include "seqi/numbers/interval.hpp"

namespace seqi {

// Enclosure of e^x for rational x <= 0. Below -2048 it is [0, e^-2048]: exp is monotone, and
// the enclosure stays a short rational (an underflowing MPFR bound would have ~10^9 bits).
Interval exp_of_nonpositive(const Rational& x, unsigned precision);

// Enclosure [lo, hi] of sum_l pi_l z_l with pi = softmax(scores / tau), scores exact.
std::pair<Rational, Rational> softmax_average_enclosure(const std::vector<Rational>& scores,
                                                        const std::vector<Rational>& z, const Rational& tau,
                                                        unsigned precision);

}  // namespace seqi
