// The same transformer in plain doubles at the same tau: what a float implementation would
// produce. Reported beside the certificate; it never decides anything.
#pragma once
#include <cstddef>
#include <optional>
#include <vector>

#include "seqi/core/dataset.hpp"
#include "seqi/model/transformer.hpp"

namespace seqi {

struct DoubleCrossCheck {
  double max_distance = 0;         // max over outputs of the distance to the nearest target
  std::size_t wrong_leader = 0;    // collapse: largest double weight not on the certified leader
  std::size_t nonfinite = 0;       // outputs with NaN or infinite coordinates
  std::size_t sequences_checked = 0;  // the first sequences, within the work budget
};

// Sequences are run in order while the estimated work L * n_j * (2 w d + d) stays within
// this many multiply-adds (deterministic; a few seconds).
inline constexpr double kDoubleCheckWorkBudget = 3e9;

// attends: per token (global index over all sequences), the token it attends to at the
// collapse block (from Lemma P); empty to skip that count.
DoubleCrossCheck double_softmax_cross_check(const Transformer<Rational>& model, const Dataset& data, double tau,
                                            std::optional<std::size_t> collapse_block,
                                            const std::vector<std::size_t>& attends);

}  // namespace seqi
