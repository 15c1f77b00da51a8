#include "seqi/forward/general_forward.hpp"

#include "seqi/numbers/bit_limit.hpp"

namespace seqi {

SequenceEnclosure softmax_sequence_enclosure(const Transformer<Rational>& model, const Sequence& input,
                                             const Rational& tau, unsigned precision_bits, std::size_t branch_limit) {
  SequenceEnclosure s;
  for (const auto& x : input) s.outputs.push_back(AffineEnclosure::exact(x));
  s.inexact_since.assign(input.size(), std::nullopt);
  advance_sequence_enclosure(model, s, 0, model.blocks.size(), tau, precision_bits, branch_limit);
  return s;
}

void advance_sequence_enclosure(const Transformer<Rational>& model, SequenceEnclosure& s, std::size_t from,
                                std::size_t to, const Rational& tau, unsigned precision_bits,
                                std::size_t branch_limit) {
  for (std::size_t b = from; b < to; ++b) {
    const auto& block = model.blocks[b];
    s.outputs = softmax_attention_enclosure(block.sa, s.outputs, tau, precision_bits);
    for (std::size_t i = 0; i < s.outputs.size(); ++i) {
      FeedForwardOutcome f = feed_forward_enclosure(block.ff, s.outputs[i], precision_bits, branch_limit);
      s.branched_units += f.branched_units;
      s.interval_units += f.interval_units;
      if (f.first_interval_unit && !s.first_interval_relu)
        s.first_interval_relu = "block " + std::to_string(b + 1) + ", token " + std::to_string(i + 1) + ", unit " +
                                std::to_string(*f.first_interval_unit + 1);
      s.outputs[i] = std::move(f.y);
      // The documented bit limit: exploding values stop the pass naming the block and token.
      const auto where = [&] { return "block " + std::to_string(b + 1) + ", token " + std::to_string(i + 1); };
      check_bit_growth(s.outputs[i].p, where);
      for (const auto& g : s.outputs[i].g) check_bit_growth(g, where);
      if (!s.outputs[i].is_exact() && !s.inexact_since[i]) s.inexact_since[i] = b;
    }
  }
}

}  // namespace seqi
