// Softmax self-attention on enclosed tokens of one sequence (lem:general-attention):
// SA_i = rho x_i + V sum_l pi_il x_l, pi_il = softmax_l(<A x_i, x_l> / tau).
// Exact where the weights or the values are exact (lem:exact-attention): the identity layer,
// one token (weight 1), A = 0 or all scores of a token equal (uniform weights), all V x_l
// equal (the weights do not matter). Otherwise weights are enclosed from exact rational
// scores when every token is exact, from interval scores otherwise.
#pragma once
#include <vector>

#include "seqi/forward/affine_enclosure.hpp"
#include "seqi/model/attention.hpp"

namespace seqi {

struct AttentionCounts {
  std::size_t exact_weights = 0;     // tokens whose weights (or weighted value) are exact
  std::size_t enclosed_weights = 0;  // tokens with interval weights
};

std::vector<AffineEnclosure> softmax_attention_enclosure(const SelfAttention<Rational>& sa,
                                                         const std::vector<AffineEnclosure>& X, const Rational& tau,
                                                         unsigned precision_bits, AttentionCounts* counts = nullptr);

}  // namespace seqi
