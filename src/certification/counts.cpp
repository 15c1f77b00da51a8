#include "seqi/certification/counts.hpp"

#include <algorithm>

#include "seqi/construction/hats.hpp"
#include "seqi/numbers/point_set.hpp"

namespace seqi {

Counts count_model(const Transformer<Rational>& model, std::size_t N, std::size_t sum_m, unsigned threads) {
  return count_model(model, N, sum_m, exact_norm_sq(model, threads));
}

Counts count_model(const Transformer<Rational>& model, std::size_t N, std::size_t sum_m, Rational param_norm_sq) {
  Counts c;
  c.N = N;
  c.d = static_cast<std::size_t>(model.dimension);
  c.sum_m = sum_m;
  c.blocks = model.blocks.size();
  c.blocks_bound_hardmax = 2 * sum_m + 2 * N + 1;
  c.blocks_bound_softmax = 2 * sum_m + 3 * N;
  c.width = model.max_width();
  c.params_bound = (20 * c.d + 22) * sum_m;
  for (const auto& b : model.blocks) {
    ++c.blocks_by_phase[phase_name(b.phase)];
    c.max_rank_A = std::max(c.max_rank_A, b.sa.A.rank_of_low_rank_part());
    c.max_rank_V = std::max(c.max_rank_V, b.sa.V.rank_of_low_rank_part());
    c.params += b.ff.stored_scalars() + b.sa.stored_scalars(c.d);
    c.params_dense += b.ff.stored_scalars() + 1 + 2 * c.d * c.d;
  }
  c.param_norm_sq = std::move(param_norm_sq);
  return c;
}

std::size_t predicted_construction_params(std::size_t d, std::size_t sum_m, bool shift_used, std::size_t lifts,
                                          std::size_t runs, std::size_t planned_runs) {
  const std::size_t plateaus = plateau_hats_within_bound(d, sum_m, lifts, shift_used, planned_runs);  // lem:plateau-hat
  return (6 * d + 7) * (sum_m + lifts) + (2 * d + 1) * plateaus + (8 * d + 8) * runs + 4 * d + 1 +
         (shift_used ? 2 * d : 0);
}

std::size_t predicted_mean_collapse_params(std::size_t d, std::size_t runs, bool offset) {
  return (8 * d + 8) * runs + 2 * d + (offset ? 2 * d + 5 : 0);
}

std::size_t distinct_target_count(const Dataset& data) {
  std::vector<Point> targets;
  for (const auto& pair : data.pairs) targets.insert(targets.end(), pair.output.begin(), pair.output.end());
  return as_sorted_set(std::move(targets)).size();
}

}  // namespace seqi
