// Rigorous softmax bounds: the certified tau* (lem:tau-star) and the collapse enclosures
// (lem:softmax-enclosure), with outward-rounded MPFR intervals on exact rational inputs.
#pragma once
#include <optional>
#include <vector>

#include "seqi/forward/softmax_average.hpp"

namespace seqi {

struct TauStarBound {
  bool unbounded = true;     // no sequence constrains tau
  Rational lower;            // when bounded: 0 < lower <= tau* = min_j G_j / ln((n_j - 1) D_j / df)
  std::size_t binding = 0;   // sequence attaining the minimum
  std::vector<std::optional<Rational>> per_sequence;
};

// Inputs per sequence: n_j, certified margin G_j (nullopt when n_j = 1) and spread D_j.
TauStarBound certified_tau_star(const std::vector<std::size_t>& n, const std::vector<std::optional<Rational>>& G,
                                const std::vector<Rational>& D, const Rational& df, unsigned precision);

// A rational upper bound on (n - 1) e^{-G/tau} D (lem:softmax-enclosure).
Rational collapse_error_bound(std::size_t n, const Rational& G, const Rational& D, const Rational& tau,
                              unsigned precision);

// The largest rational with at most `digits` significant decimal digits that is <= x (x > 0).
Rational round_down_significant(const Rational& x, int digits);

}  // namespace seqi
