// The float replays' readings fl(r . x) of many tokens at once, each in one fixed summation order
// (the one Eigen 3.4's vectorized dot product takes on SSE2, so the replays' floats are those of
// r.dot(x) there), computed for several tokens side by side: one order for every token, batch
// size and instruction set, and independent chains the processor can overlap.
#pragma once
#include <cstddef>
#include <cstdint>

namespace seqi {

// The order, with packet P = 2 (double) or 4 (float), lanes L = 2P, p_i = fl(r_i x_i), d terms:
//   fewer than L terms: a P-lane packet A = (p_0..p_{P-1}) when d >= P, s = reduce(A), then
//     s = fl(s + p_i) for the rest in index order (d < P: s = p_0, then the rest);
//   otherwise: L lane sums a_j = (...(p_j + p_{j+L}) + p_{j+2L})...) over the whole blocks of L
//     terms, A_j = fl(a_j + a_{j+P}) (j < P), plus p_{floor(d/L)L + j} for one further whole
//     packet, s = reduce(A), then the remaining terms in index order;
//   reduce: A_0 + A_1 (P = 2), (A_0 + A_2) + (A_1 + A_3) (P = 4).
// Every operation rounds to nearest (no contraction: the source is compiled -ffp-contract=off).
template <class F>
F fixed_order_dot(const F* r, const F* x, std::size_t d);

// t[k] = fixed_order_dot(r, X + k d, d) for the `count` tokens k listed in `tokens` (columns of d
// contiguous coordinates starting at X).
template <class F>
void fixed_order_readings(const F* r, const F* X, std::size_t d, const std::uint32_t* tokens, std::size_t count,
                          F* t);

}  // namespace seqi
