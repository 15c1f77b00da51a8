// Per-index work spread over threads, with results that do not depend on the thread count:
// each index writes only its own slot, and the caller reduces the slots in index order.
#pragma once
#include <algorithm>
#include <atomic>
#include <cstddef>
#include <exception>
#include <thread>
#include <vector>

#include "seqi/numbers/thread_caches.hpp"

namespace seqi {

// Calls f(j) once for every j in [0, n), on min(threads, n) threads (threads 0 or 1: in the
// calling thread, in order). Precondition: f(j) and f(k) for j != k touch no common mutable
// state. If some f(j) throws, no new index is started and, once every thread has stopped,
// the exception of the smallest throwing j is rethrown: the one a sequential loop would throw
// (every index below it was started, since indices are handed out in increasing order).
// If a thread cannot be started, the started ones are joined and that error is rethrown.
template <class F>
void for_each_index(std::size_t n, unsigned threads, F&& f) {
  const std::size_t workers = std::min<std::size_t>(threads, n);
  if (workers <= 1) {
    for (std::size_t j = 0; j < n; ++j) f(j);
    return;
  }
  std::atomic<std::size_t> next{0};
  std::atomic<bool> stop{false};
  std::vector<std::exception_ptr> error(workers);
  std::vector<std::size_t> error_index(workers, n);
  auto work = [&](std::size_t w) {
    while (!stop.load(std::memory_order_relaxed)) {
      const std::size_t j = next.fetch_add(1);
      if (j >= n) return;
      try {
        f(j);
      } catch (...) {
        error[w] = std::current_exception();
        error_index[w] = j;
        stop = true;
        return;
      }
    }
  };
  std::vector<std::thread> pool;
  try {
    pool.reserve(workers - 1);
    for (std::size_t w = 1; w < workers; ++w)
      pool.emplace_back([&work, w] {
        work(w);
        release_thread_number_caches();
      });
  } catch (...) {  // a thread could not start (std::system_error) or no memory: never terminate
    stop = true;   // with a joinable thread: the started ones stop after their current index
    for (auto& t : pool) t.join();
    throw;
  }
  work(0);
  for (auto& t : pool) t.join();
  const auto first = std::min_element(error_index.begin(), error_index.end()) - error_index.begin();
  if (error[static_cast<std::size_t>(first)]) std::rethrow_exception(error[static_cast<std::size_t>(first)]);
}

// The default thread count: every core (at least 1).
inline unsigned all_cores() { return std::max(1u, std::thread::hardware_concurrency()); }

}  // namespace seqi
