// Positive homogeneity of relu (lem:relu-rescaling): relu(s t) = s relu(t) for s > 0, so a
// hidden unit (u_k, b_k, w_k) and (s u_k, s b_k, w_k / s) compute the same layer. With s a
// power of two the rescaled weights are exact (and exact in binary floating point whenever
// the originals are).
#pragma once
#include "seqi/model/transformer.hpp"

namespace seqi {

// Rescales every unit of ff by the power of two s ~ (|w_k|^2 / |(u_k, b_k)|^2)^(1/4), which
// minimises s^2 |(u_k, b_k)|^2 + |w_k|^2 / s^2 within a factor 1.25, applied only when it
// lowers that sum. Units with a zero input side or a zero output column are left as they
// are. The function is unchanged.
void balance_hidden_units(FeedForward<Rational>& ff);

// The rescaling of balance_hidden_units for unit k alone, given in = |u_k|^2 + b_k^2 and
// out = |w_k|^2: builders that know these norms cheaply (one_direction_layer) balance as they build.
void balance_unit(FeedForward<Rational>& ff, Eigen::Index k, const Rational& in, const Rational& out);

}  // namespace seqi
