// The softmax forward pass of one sequence on enclosed tokens (lem:general-attention,
// lem:ff-signs): tokens stay exact rational points as long as every layer allows it.
#pragma once
#include <optional>
#include <string>
#include <vector>

#include "seqi/forward/general_attention.hpp"
#include "seqi/forward/general_feed_forward.hpp"
#include "seqi/core/dataset.hpp"
#include "seqi/model/transformer.hpp"

namespace seqi {

struct SequenceEnclosure {
  std::vector<AffineEnclosure> outputs;
  std::vector<std::optional<std::size_t>> inexact_since;  // first block (0-based) after which a token was enclosed
  std::size_t branched_units = 0, interval_units = 0;
  std::optional<std::string> first_interval_relu;  // "block b, token i, unit u" (1-based)
};

SequenceEnclosure softmax_sequence_enclosure(const Transformer<Rational>& model, const Sequence& input,
                                             const Rational& tau, unsigned precision_bits, std::size_t branch_limit);

// Applies blocks [from, to) to s, whose outputs enclose the tokens after block from - 1 (the
// inputs when from == 0). Every token of the true state lies in its enclosure before, so after.
void advance_sequence_enclosure(const Transformer<Rational>& model, SequenceEnclosure& s, std::size_t from,
                                std::size_t to, const Rational& tau, unsigned precision_bits,
                                std::size_t branch_limit);

}  // namespace seqi
