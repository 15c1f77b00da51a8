#include "seqi/replay/float_replays.hpp"

#include <algorithm>
#include <atomic>
#include <exception>
#include <future>
#include <thread>

#include "seqi/core/low_priority.hpp"
#include "seqi/core/parallel.hpp"
#include "seqi/numbers/thread_caches.hpp"

namespace seqi {

FloatReplays replay_float64_and_float32(const Transformer<Rational>& model, const Dataset& data, std::optional<double> tau,
                                    std::optional<std::size_t> collapse_block, const std::vector<std::size_t>& attends,
                                    unsigned threads) {
  BackgroundReplays check(model, data, collapse_block, threads);
  return check.finish(tau, attends);
}

// Stage-1 units 0 .. chunks64 - 1 are the float64 replay's chunks, the rest the float32 one's;
// each is claimed once through `next`, by the background thread or by finish().
struct BackgroundReplays::Impl {
  const Transformer<Rational>& model;
  const Dataset& data;
  std::optional<std::size_t> collapse_block;
  unsigned threads;
  std::unique_ptr<FloatReplay<double>> float64;
  std::unique_ptr<FloatReplay<float>> float32;
  std::atomic<std::size_t> next{0};
  std::atomic<bool> stop{false};
  std::promise<void> built_promise;
  std::future<void> built = built_promise.get_future();
  std::exception_ptr background_error;
  std::thread background;

  Impl(const Transformer<Rational>& m, const Dataset& d, std::optional<std::size_t> c, unsigned t)
      : model(m), data(d), collapse_block(c), threads(t) {}

  void build() {
    float64 = std::make_unique<FloatReplay<double>>(model, data, collapse_block, 1e-6);
    float32 = std::make_unique<FloatReplay<float>>(model, data, collapse_block, 1e-3);
  }
  std::size_t units() const { return float64->chunks() + float32->chunks(); }
  // Claims and runs stage-1 units until none is left (or stop is set).
  void run_prefixes() {
    for (std::size_t u = next++; u < units() && !stop.load(); u = next++) {
      if (u < float64->chunks()) float64->run_prefix(u, &stop);
      else float32->run_prefix(u - float64->chunks(), &stop);
    }
  }
  void run_in_background() {
    lower_this_threads_priority();
    try {
      build();
      built_promise.set_value();
    } catch (...) {
      built_promise.set_exception(std::current_exception());
      release_thread_number_caches();
      return;
    }
    try {
      run_prefixes();
    } catch (...) {
      background_error = std::current_exception();
    }
    release_thread_number_caches();
  }
};

BackgroundReplays::BackgroundReplays(const Transformer<Rational>& model, const Dataset& data,
                                           std::optional<std::size_t> collapse_block, unsigned threads)
    : impl_(std::make_unique<Impl>(model, data, collapse_block, threads)) {
  if (threads >= 2) impl_->background = std::thread([this] { impl_->run_in_background(); });
}

BackgroundReplays::~BackgroundReplays() {
  impl_->stop = true;
  if (impl_->background.joinable()) impl_->background.join();
}

FloatReplays BackgroundReplays::finish(std::optional<double> tau, const std::vector<std::size_t>& attends) {
  Impl& m = *impl_;
  const unsigned threads = std::max(1u, m.threads);  // 0 would leave stage 1 undone
  if (m.background.joinable()) {
    m.built.get();
  } else {
    m.build();
  }
  for_each_index(threads, threads, [&](std::size_t) { m.run_prefixes(); });
  if (m.background.joinable()) m.background.join();
  if (m.background_error) std::rethrow_exception(m.background_error);
  const std::size_t chunks64 = m.float64->chunks();
  for_each_index(m.units(), threads, [&](std::size_t u) {
    if (u < chunks64) m.float64->run_rest(u, tau, attends);
    else m.float32->run_rest(u - chunks64, tau, attends);
  });
  return {m.float64->result(tau), m.float32->result(tau)};
}

}  // namespace seqi
