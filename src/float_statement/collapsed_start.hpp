// Internal to the float statements: block 0's attention layer of a mean collapse (A = 0, every
// token of X_j mapped to one point, lem:mean-shift) bounded on the inputs (lem:float-attention), by
// chunks of sequences that each decode only their own tokens, shared among the processes and
// threads of an Execution. What each format keeps per sequence is what
// Propagation::keep_one_token_per_sequence() keeps after that layer on all inputs at once.
#pragma once
#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "float_statement/propagation.hpp"
#include "seqi/core/dataset.hpp"
#include "seqi/core/execution.hpp"

namespace seqi::float_run_detail {

struct CollapsedStart {
  struct Format {
    Propagation::Kept kept;       // per sequence (empty when failed)
    std::size_t decisions = 0;    // counted up to the first failure, as in one thread
    std::string failed_layer;     // "input" or "attention" when failed, else ""
    std::string failure;          // where and why
  };
  std::vector<Format> formats;   // in the formats' order
  std::size_t represented = 0;   // tokens of all sequences
  std::size_t input_bits = 0;    // largest coordinate bit size of the inputs (read on the way)
};

// sa: block 0's attention layer; next: the direction of block 0's feed-forward layer when it has
// one; tau_inv: as FloatRunBound's (unused by a layer with A = 0). Collective with exec.sharding.
CollapsedStart bound_collapsed_start(const Dataset& data, const SelfAttention<Rational>& sa, Setting kind,
                                     double tau_inv, const std::optional<Point>& next,
                                     const std::vector<FloatFormat>& formats, const Execution& exec);

}  // namespace seqi::float_run_detail
