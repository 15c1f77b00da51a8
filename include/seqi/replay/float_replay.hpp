// The built transformer run in plain floating point (float64 or float32) on every sequence:
// what a float implementation of the weights rounded to nearest would produce. A measurement
// reported beside the certificate; it is NOT part of any proof and never decides anything.
#pragma once
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "seqi/core/byte_codec.hpp"
#include "seqi/core/dataset.hpp"
#include "seqi/replay/replay_outcome.hpp"
#include "seqi/model/transformer.hpp"

namespace seqi {

// Multiply-adds a run may spend (2 w d per token and FF layer). A run whose whole estimate is at
// most kReplayCompleteFactor budgets covers every sequence (a complete answer is worth up to
// three times the work of a sample); a larger one covers a seeded spread of the sequences within
// the budget (replay_sample.hpp) and says so.
inline constexpr double kReplayWorkBudget = 2e11;
inline constexpr double kReplayCompleteFactor = 3;

// Hausdorff distance between two finite point sets of the same dimension (double).
double hausdorff_distance(const std::vector<Vec<double>>& a, const std::vector<Vec<double>>& b);

// One float replay in two stages per chunk of sequences, so that its first stage can run
// before the certificate's facts exist: run_prefix(c) runs blocks up to the first that needs a
// fact (the collapse block's certified leaders, or a softmax temperature), run_rest(c) the
// remaining blocks and the comparison with the targets. Chunks are independent: distinct chunks
// may run on distinct threads at once, and the result does not depend on which thread ran
// which chunk or when. Holds references to the dataset (it must outlive the replay).
template <class F>
class FloatReplay {
 public:
  // The float model (weights rounded to nearest) and the sequences it covers: every one when the
  // whole estimate is within kReplayCompleteFactor * budget, else a sample within `budget`.
  FloatReplay(const Transformer<Rational>& model, const Dataset& data, std::optional<std::size_t> collapse_block,
              double tolerance, double budget = kReplayWorkBudget);
  ~FloatReplay();
  FloatReplay(const FloatReplay&) = delete;
  FloatReplay& operator=(const FloatReplay&) = delete;

  std::size_t chunks() const;
  // Stage 1 of chunk c; returns early (the chunk unusable) once *stop is set.
  void run_prefix(std::size_t c, const std::atomic<bool>* stop = nullptr);
  // Stage 2 of chunk c, after its stage 1. tau and attends: as float_run.
  void run_rest(std::size_t c, std::optional<double> tau, const std::vector<std::size_t>& attends);
  // What chunk c's stage 2 measured, as bytes (to pass between processes), and read back from
  // them in place of running the chunk: the result is the same either way.
  void put_chunk_result(ByteWriter& w, std::size_t c) const;
  void get_chunk_result(ByteReader& r, std::size_t c);
  // After stage 2 of every chunk (or get_chunk_result).
  ReplayOutcome result(std::optional<double> tau) const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// Runs the model in scalar F (float or double), all sequences together layer by layer.
// tau: softmax temperature, nullopt for hardmax. attends: per token (global index), the
// certified leader at the collapse block (lem:P); empty to skip the wrong-leader count.
// threads: chunks of sequences run in parallel; the result does not depend on it. budget: the
// work budget (multiply-adds) deciding the sample (replay_sample.hpp).
template <class F>
ReplayOutcome run_replay(const Transformer<Rational>& model, const Dataset& data, std::optional<double> tau,
                   std::optional<std::size_t> collapse_block, const std::vector<std::size_t>& attends,
                   double tolerance, unsigned threads = 1, double budget = kReplayWorkBudget);

}  // namespace seqi
