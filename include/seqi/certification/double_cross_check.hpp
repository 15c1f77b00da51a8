// The same transformer in plain float64 and float32 (hardmax, or softmax at the checked tau)
// on every sequence: what a float implementation would produce. It is NOT part of any proof:
// reported beside the certificate, it never decides anything. Cost: two dense float passes,
// capped by kFloatRunWorkBudget multiply-adds (every benchmark row fits).
#pragma once
#include <cstddef>
#include <optional>
#include <vector>

#include "seqi/certification/float_replay.hpp"

namespace seqi {

struct DoubleCrossCheck {
  FloatRun float64, float32;  // tolerances 1e-6 and 1e-3 (relative Hausdorff distance)
};

// attends: per token (global index over all sequences), the token it attends to at the
// collapse block (from Lemma P); empty to skip the wrong-leader count. threads: as float_run.
DoubleCrossCheck double_cross_check(const Transformer<Rational>& model, const Dataset& data, std::optional<double> tau,
                                    std::optional<std::size_t> collapse_block, const std::vector<std::size_t>& attends,
                                    unsigned threads = 1);

}  // namespace seqi
