// What one float replay measured (float_replay.hpp): a plain record, reported beside the
// certificate. A measurement, never part of a proof.
#pragma once
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>

namespace seqi {

struct ReplayOutcome {
  std::string scalar;                 // "float64" or "float32"
  std::string rule;                   // "hardmax" or "softmax"
  double tolerance = 0;               // a sequence is off target above this relative distance
  double max_relative_hausdorff = 0;  // max_j H([T(X_j)], [Y_j]) / max(1, max_{y in Y_j} |y|)
  std::size_t sequences_off_target = 0;
  std::size_t wrong_leader = 0;       // collapse tokens whose float argmax is not the certified leader
  std::size_t nonfinite = 0;          // output tokens with NaN or infinite coordinates
  std::size_t sequences_checked = 0;  // = sequences unless over the work budget
  std::size_t sequences = 0;
  // Set when over the work budget: the seed of the spread of sequences_checked sequences over
  // the whole dataset that was run (replay_sample.hpp).
  std::optional<std::uint64_t> sample_seed;
};

}  // namespace seqi
