// The built transformer run in plain floating point (float64 or float32) on every sequence:
// what a float implementation of the weights rounded to nearest would produce. A measurement
// reported beside the certificate; it is NOT part of any proof and never decides anything.
#pragma once
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "seqi/core/dataset.hpp"
#include "seqi/model/transformer.hpp"

namespace seqi {

struct FloatRun {
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

// Multiply-adds a run may spend (2 w d per token and FF layer); a run whose estimate is larger
// covers a seeded spread of the sequences (replay_sample.hpp) and says so.
inline constexpr double kFloatRunWorkBudget = 2e11;

// Hausdorff distance between two finite point sets of the same dimension (double).
double hausdorff_distance(const std::vector<Vec<double>>& a, const std::vector<Vec<double>>& b);

// Runs the model in scalar F (float or double), all sequences together layer by layer.
// tau: softmax temperature, nullopt for hardmax. attends: per token (global index), the
// certified leader at the collapse block (lem:P); empty to skip the wrong-leader count.
// threads: chunks of sequences run in parallel; the result does not depend on it. budget: the
// work budget (multiply-adds) deciding the sample (replay_sample.hpp).
template <class F>
FloatRun float_run(const Transformer<Rational>& model, const Dataset& data, std::optional<double> tau,
                   std::optional<std::size_t> collapse_block, const std::vector<std::size_t>& attends,
                   double tolerance, unsigned threads = 1, double budget = kFloatRunWorkBudget);

}  // namespace seqi
