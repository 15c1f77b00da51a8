#include "seqi/replay/float_replays.hpp"

#include <algorithm>
#include <atomic>
#include <exception>
#include <future>
#include <thread>
#include <tuple>

#include "seqi/core/low_priority.hpp"
#include "seqi/core/parallel.hpp"
#include "seqi/core/sharding.hpp"
#include "seqi/numbers/thread_caches.hpp"

namespace seqi {

FloatReplays replay_float64_and_float32(const Transformer<Rational>& model, const Dataset& data, std::optional<double> tau,
                                    std::optional<std::size_t> collapse_block, const std::vector<std::size_t>& attends,
                                    unsigned threads) {
  BackgroundReplays check(model, data, collapse_block, Execution{nullptr, threads, nullptr});
  return check.finish(tau, attends);
}

// Units 0 .. chunks64 - 1 are the float64 replay's chunks, the rest the float32 one's; this
// process owns units [first, last) (all without sharding). Each owned unit's stage 1 is claimed
// once through `next`, by the background thread or by finish().
struct BackgroundReplays::Impl {
  const Transformer<Rational>& model;
  const Dataset& data;
  std::optional<std::size_t> collapse_block;
  Execution exec;
  std::size_t first = 0, last = 0;
  std::unique_ptr<FloatReplay<double>> float64;
  std::unique_ptr<FloatReplay<float>> float32;
  std::atomic<std::size_t> next{0};
  std::atomic<bool> stop{false};
  std::promise<void> built_promise;
  std::future<void> built = built_promise.get_future();
  std::exception_ptr background_error;
  std::thread background;

  Impl(const Transformer<Rational>& m, const Dataset& d, std::optional<std::size_t> c, const Execution& e)
      : model(m), data(d), collapse_block(c), exec(e) {}

  void build() {
    float64 = std::make_unique<FloatReplay<double>>(model, data, collapse_block, 1e-6);
    float32 = std::make_unique<FloatReplay<float>>(model, data, collapse_block, 1e-3);
    std::tie(first, last) = exec.sharding ? owned_range(units(), exec.sharding->parts(), exec.sharding->part())
                                          : std::pair<std::size_t, std::size_t>{0, units()};
    next = first;
  }
  std::size_t units() const { return float64->chunks() + float32->chunks(); }
  // Claims and runs owned stage-1 units until none is left (or stop is set).
  void run_prefixes() {
    for (std::size_t u = next++; u < last && !stop.load(); u = next++) {
      if (u < float64->chunks()) float64->run_prefix(u, &stop);
      else float32->run_prefix(u - float64->chunks(), &stop);
    }
  }
  // Stage 2 of unit u, and its measurement to and from bytes.
  void run_rest(std::size_t u, std::optional<double> tau, const std::vector<std::size_t>& attends) {
    if (u < float64->chunks())
      float64->run_rest(u, tau, attends);
    else
      float32->run_rest(u - float64->chunks(), tau, attends);
  }
  void put_result(ByteWriter& w, std::size_t u) const {
    if (u < float64->chunks())
      float64->put_chunk_result(w, u);
    else
      float32->put_chunk_result(w, u - float64->chunks());
  }
  void get_result(ByteReader& r, std::size_t u) {
    if (u < float64->chunks())
      float64->get_chunk_result(r, u);
    else
      float32->get_chunk_result(r, u - float64->chunks());
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
                                     std::optional<std::size_t> collapse_block, const Execution& exec)
    : impl_(std::make_unique<Impl>(model, data, collapse_block, exec)) {
  if (exec.threads >= 2) impl_->background = std::thread([this] { impl_->run_in_background(); });
}

BackgroundReplays::~BackgroundReplays() {
  impl_->stop = true;
  if (impl_->background.joinable()) impl_->background.join();
}

FloatReplays BackgroundReplays::finish(std::optional<double> tau, const std::vector<std::size_t>& attends) {
  Impl& m = *impl_;
  const unsigned threads = std::max(1u, m.exec.threads);  // 0 would leave stage 1 undone
  if (m.background.joinable()) {
    m.built.get();
  } else {
    m.build();
  }
  std::exception_ptr prefix_error;
  try {
    for_each_index(threads, threads, [&](std::size_t) { m.run_prefixes(); });
  } catch (...) {
    prefix_error = std::current_exception();
  }
  if (m.background.joinable()) m.background.join();
  if (!prefix_error) prefix_error = m.background_error;
  // A failed stage 1 fails its units here, so that it reaches every process.
  for_each_index_shared(
      m.units(), Execution{nullptr, threads, m.exec.sharding},
      [&](std::size_t u) {
        if (prefix_error) std::rethrow_exception(prefix_error);
        m.run_rest(u, tau, attends);
      },
      [&](ByteWriter& w, std::size_t u) { m.put_result(w, u); },
      [&](ByteReader& r, std::size_t u) { m.get_result(r, u); });
  return {m.float64->result(tau), m.float32->result(tau)};
}

}  // namespace seqi
