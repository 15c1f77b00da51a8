#include "seqi/model/transformer.hpp"

#include "seqi/core/parallel.hpp"
#include "seqi/numbers/exact_sum.hpp"

namespace seqi {

const char* phase_name(Phase p) {
  switch (p) {
    case Phase::separation: return "separation";
    case Phase::placement: return "placement";
    case Phase::interpolation: return "interpolation";
    case Phase::user: return "user";
  }
  return "?";
}

Rational exact_norm_sq(const Transformer<Rational>& model, unsigned threads) {
  std::vector<Rational> norm_sq(model.blocks.size());
  for_each_index(model.blocks.size(), threads, [&](std::size_t k) {
    norm_sq[k] = model.blocks[k].ff.stored_norm_sq() + model.blocks[k].sa.stored_norm_sq();
  });
  return exact_sum(std::move(norm_sq));
}

}  // namespace seqi
