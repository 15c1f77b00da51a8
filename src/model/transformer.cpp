#include "seqi/model/transformer.hpp"

#include "seqi/core/sharding.hpp"
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

Rational exact_norm_sq(const Transformer<Rational>& model, const Execution& exec) {
  return exact_sum(shard_map_rational(model.blocks.size(), exec, [&](std::size_t k) {
    return Rational(model.blocks[k].ff.stored_norm_sq() + model.blocks[k].sa.stored_norm_sq());
  }));
}

}  // namespace seqi
