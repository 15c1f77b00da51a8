// Block, width and parameter counts of a transformer against the theorems (lem:counts).
#pragma once
#include <cstddef>
#include <map>
#include <string>

#include "seqi/core/dataset.hpp"
#include "seqi/model/transformer.hpp"

namespace seqi {

inline constexpr std::size_t kTheoremWidthBound = 4;  // Thm 1.6 / 1.8: width at most 4

struct Counts {
  std::size_t N = 0, d = 0, sum_m = 0;
  std::size_t blocks = 0;
  std::size_t blocks_bound_hardmax = 0;  // Thm 1.6: 2 sum(m) + 2N + 1
  std::size_t blocks_bound_softmax = 0;  // Thm 1.8: 2 sum(m) + 3N
  std::map<std::string, std::size_t> blocks_by_phase;
  // Our construction only (0 otherwise): distinct target tokens D and the bound
  // K + sum(m) + D + 2 of lem:fewer-blocks-count.
  std::size_t distinct_targets = 0;
  std::size_t blocks_bound_grouped = 0;
  bool mean_collapse = false;  // the bound is N instead (lem:mean-collapse: one run per sequence at most)
  bool hinges = false;         // mean collapse by hinges: the bound is ceil((N + 1) / 4) (lem:hinge-interpolation)
  std::size_t width = 0;
  std::size_t max_rank_A = 0, max_rank_V = 0;  // rank of the low-rank parts
  std::size_t params = 0;        // stored scalars, structured A and V
  std::size_t params_dense = 0;  // A and V as dense d x d
  std::size_t params_bound = 0;  // (20d + 22) sum(m): the O(d sum(m)) bound of lem:counts
  Rational param_norm_sq;        // ||theta||^2 over the stored scalars (lem:param-norm)
};

// The blocks' squared norms are computed on `threads` threads; the result does not depend on it.
Counts count_model(const Transformer<Rational>& model, std::size_t N, std::size_t sum_m, unsigned threads = 1);
// The same with ||theta||^2 already known, e.g. weight_conditioning(model).norm_sq, the same sum
// of squares of the stored scalars (computing it twice cost seconds on large inpaint models).
// Precondition: param_norm_sq is that sum for `model`.
Counts count_model(const Transformer<Rational>& model, std::size_t N, std::size_t sum_m, Rational param_norm_sq);

// The structured parameter count lem:fewer-blocks-count predicts for our construction with
// `runs` interpolation blocks: (6d+7) (sum(m) + K) + (2d+1) plateaus + (8d+8) runs + 4d + 1 +
// 2d [shift used], plateaus = plateau_hats_within_bound for the runs the places allow,
// `planned_runs` = runs_of_grouped_places (lem:plateau-hat).
std::size_t predicted_construction_params(std::size_t d, std::size_t sum_m, bool shift_used, std::size_t lifts,
                                          std::size_t runs, std::size_t planned_runs);
// The same for the mean-collapse construction (lem:mean-collapse): one flat-hat block per run,
// the first one's attention the collapse (0, 0, v a^T), and the offset block (identity attention,
// one constant unit) when there is one.
std::size_t predicted_mean_collapse_params(std::size_t d, std::size_t runs, bool offset);

// Number of distinct points among all target tokens.
std::size_t distinct_target_count(const Dataset& data);

}  // namespace seqi
