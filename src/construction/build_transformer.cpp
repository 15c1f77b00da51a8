// The construction a run certifies: the mean collapse (lem:mean-collapse) where it applies, the
// leader construction (phases S, P, C, I) otherwise, and where both apply the one with the smaller
// exact ||theta||^2 (lem:param-norm).
#include <exception>
#include <memory>
#include <optional>
#include <string>

#include "seqi/construction/construction.hpp"
#include "seqi/construction/construction_bytes.hpp"
#include "seqi/construction/shift_sizes.hpp"
#include "seqi/core/sharding.hpp"
#include "seqi/numbers/rational.hpp"

namespace seqi {
namespace {

// The leader construction built beside the mean collapse, as process 0 (or the only process)
// left it, and what every process needs of it.
struct LeaderOutcome {
  bool built = false;      // every phase built; else abandoned at `norm`
  Rational norm;           // its exact ||theta||^2, or the partial norm it was abandoned at
  bool lighter = false;    // built and lighter than the mean collapse
  std::optional<std::string> failure;  // a ConstructionError's message
  std::string bytes;       // the construction, when lighter and sent to other processes
};

void put_outcome(ByteWriter& w, const LeaderOutcome& o) {
  w.put(o.built), w.put(o.norm), w.put(o.lighter), w.put(o.failure.has_value());
  if (o.failure) w.put(std::string_view(*o.failure));
  w.put(std::string_view(o.bytes));
}

LeaderOutcome get_outcome(ByteReader& r) {
  LeaderOutcome o;
  o.built = r.flag(), o.norm = r.rational(), o.lighter = r.flag();
  if (r.flag()) o.failure = r.string();
  o.bytes = r.string();
  return o;
}

// The leaders planned beside the mean collapse: under MPI by process 0 alone while the other
// processes build the mean collapse's candidate directions (the drawn direction, often the
// slowest, has the last process to itself where there are enough); on one process by the first
// thread without a candidate left to start (with one thread: after the mean collapse). A failure
// is kept for finish() to report on every process.
class LeadersBeside {
 public:
  LeadersBeside(const Dataset& data, const Construction& empty, const Execution& exec)
      : data_(data), exec_(exec), empty_(empty) {}

  // Plans on process 0 (once): the mean collapse's `between`.
  void plan() {
    if (planned_ || failed_ || (exec_.sharding && exec_.sharding->part() != 0)) return;
    try {
      planned_ = std::make_unique<LeaderVariants>(data_, empty_, exec_.threads);
    } catch (...) {
      failed_ = std::current_exception();
    }
  }

  // Finishes on process 0 against the mean collapse's norm and tells every process (collective
  // with exec.sharding); rethrows a failure of the plan or the finish on every process.
  LeaderOutcome finish(const Rational& mean_norm) {
    const Execution local{exec_.progress, exec_.threads, nullptr};
    auto outcome = shard_map<LeaderOutcome>(
        1, exec_,
        [&](std::size_t) {
          LeaderOutcome o;
          try {
            plan();
            if (failed_) std::rethrow_exception(failed_);
            const std::optional<Rational> stopped_at = planned_->finish(local, mean_norm);
            o.built = !stopped_at;
            o.norm = o.built ? exact_norm_sq(planned_->built().model, local) : *stopped_at;
            o.lighter = o.built && o.norm < mean_norm;
            if (o.lighter && sharded(exec_)) o.bytes = construction_to_bytes(planned_->built());
          } catch (const ConstructionError& e) {
            o.failure = e.what();
          }
          return o;
        },
        put_outcome, get_outcome);
    if (outcome.front().failure) throw ConstructionError(*outcome.front().failure);
    return std::move(outcome.front());
  }

  // The leader construction, when the outcome says it is the lighter.
  Construction take(LeaderOutcome& o) {
    return planned_ ? std::move(planned_->built()) : construction_from_bytes(o.bytes);
  }

 private:
  const Dataset& data_;
  const Execution& exec_;
  const Construction& empty_;
  std::unique_ptr<LeaderVariants> planned_;
  std::exception_ptr failed_;
};

// The leader construction alone, at the lightest shift size (rem:shift-sizes), from `empty`.
Construction leader_construction(const Dataset& data, const Construction& empty, const Execution& exec) {
  LeaderVariants variants(data, empty, exec.threads);
  variants.finish(exec);  // without a budget some size is built
  return std::move(variants.built());
}

}  // namespace

Construction build_interpolating_transformer(const Dataset& data, std::uint64_t seed, const Execution& exec,
                                             const ConstructionOptions& options) {
  Construction out;
  out.model.dimension = data.dimension;
  out.record.seed = seed;
  if (!options.mean_collapse) return leader_construction(data, out, exec);
  Construction mean = out;
  LeadersBeside leaders(data, out, exec);
  std::optional<Rational> mean_norm;
  try {
    // Under MPI process 0 plans the leaders while the others build the candidates; on one
    // process with several threads, a thread plans them once no candidate is left to start.
    const bool overlap = options.keep_lighter && (sharded(exec) || exec.threads > 1);
    mean_norm = build_mean_collapse(data, mean, exec, overlap ? std::function<void()>([&] { leaders.plan(); })
                                                               : std::function<void()>());
  } catch (const ConstructionError& e) {  // an option, not a requirement: the leaders always apply
    mean.record.choices.push_back({std::string("mean collapse (lem:mean-collapse) not built: ") + e.what() +
                                       "; the leader construction instead",
                                   1, Integer(0)});
  }
  if (mean_norm && !options.keep_lighter) return mean;
  if (!mean_norm) {
    out.record.choices = mean.record.choices;  // why it does not apply, if it says
    return leader_construction(data, out, exec);
  }
  // Both built, the smaller exact ||theta||^2 kept (lem:param-norm); the leaders are abandoned
  // once their partial norm reaches the mean collapse's.
  LeaderOutcome o = leaders.finish(*mean_norm);
  Construction kept = o.lighter ? leaders.take(o) : std::move(mean);
  kept.record.choices.push_back({"construction by least ||theta||^2: " +
                                     std::string(o.lighter ? "leaders (phases S, P, C, I)" : "mean collapse") +
                                     ", mean collapse " + approx_decimal(*mean_norm, 4) + " against leaders " +
                                     (o.built ? "" : "at least ") + approx_decimal(o.norm, 4) +
                                     (o.built ? "" : " (not completed)") + " (lem:mean-collapse)",
                                 1, Integer(0)});
  return kept;
}

}  // namespace seqi
