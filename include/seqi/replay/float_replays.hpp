// The same transformer in plain float64 and float32 (hardmax, or softmax at the checked tau)
// on every sequence: what a float implementation would produce. It is NOT part of any proof:
// reported beside the certificate, it never decides anything. Cost: two float passes, each over
// every sequence when its estimate is within kReplayCompleteFactor * kReplayWorkBudget
// multiply-adds (every benchmark row fits), else over a sample within the budget.
#pragma once
#include <cstddef>
#include <memory>
#include <optional>
#include <vector>

#include "seqi/core/execution.hpp"
#include "seqi/replay/float_replay.hpp"

namespace seqi {

struct FloatReplays {
  ReplayOutcome float64, float32;  // tolerances 1e-6 and 1e-3 (relative Hausdorff distance)
};

// attends: per token (global index over all sequences), the token it attends to at the
// collapse block (from Lemma P); empty to skip the wrong-leader count. threads: as float_run.
FloatReplays replay_float64_and_float32(const Transformer<Rational>& model, const Dataset& data, std::optional<double> tau,
                                    std::optional<std::size_t> collapse_block, const std::vector<std::size_t>& attends,
                                    unsigned threads = 1);

// replay_float64_and_float32 started before its facts (tau, attends) exist. With exec.threads >= 2
// a background thread of the lowest priority (lower_this_threads_priority) builds both float
// models and runs the first stage (FloatReplay::run_prefix) of this process's chunks while the
// caller certifies, on the core the caller leaves idle; finish() runs what is left on
// exec.threads threads. With exec.sharding, each process runs its owned block of the chunks and
// finish() gathers every chunk's measurement (a few numbers); finish() is then collective. The
// result equals replay_float64_and_float32's (which runs through this class) for the same
// arguments (each chunk computes the same floats whichever thread or process runs it). model and
// data must outlive this object.
class BackgroundReplays {
 public:
  BackgroundReplays(const Transformer<Rational>& model, const Dataset& data, std::optional<std::size_t> collapse_block,
                    const Execution& exec);
  ~BackgroundReplays();  // stops and joins the background thread if finish() was not called
  BackgroundReplays(const BackgroundReplays&) = delete;
  BackgroundReplays& operator=(const BackgroundReplays&) = delete;

  // Once per object. Rethrows what the background thread threw (out of memory, for example).
  FloatReplays finish(std::optional<double> tau, const std::vector<std::size_t>& attends);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace seqi
