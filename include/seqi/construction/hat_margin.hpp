// Float-robust hats (lem:hat-margin, lem:hat-order in proofs/conditioning.tex): half-widths
// that leave every other reading a decision margin, and the order of the placement hats.
#pragma once
#include <cstddef>
#include <vector>

#include "seqi/numbers/rational.hpp"

namespace seqi {

// Largest power of two delta <= gap / 2 (no cap: it scales with the readings, lem:hat-margin);
// precondition gap > 0. A reading at least `gap` from the centre t_q is then at least delta from
// every breakpoint t_q - delta, t_q, t_q + delta.
Rational hat_half_width_with_margin(const Rational& gap);

// Indices 0..n-1 by decreasing reading (ties by index): the placement hats act in this order,
// so every leader still to be placed reads left of every hat built before it (lem:hat-order).
std::vector<std::size_t> decreasing_reading_order(const std::vector<Rational>& readings);

}  // namespace seqi
