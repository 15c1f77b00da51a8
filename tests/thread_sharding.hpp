// Parts of a sharded run as threads of one process, exchanging bytes through a shared table:
// what verify-mpi does over MPI, for the test suites (test_sharding, test_collapsed_start).
#pragma once
#include <barrier>
#include <cstddef>
#include <string>
#include <thread>
#include <vector>

#include "seqi/core/sharding.hpp"
#include "seqi/numbers/thread_caches.hpp"

namespace seqi_test {

using seqi::Sharding;
using seqi::release_thread_number_caches;

// `count` parts exchanging bytes through a shared table; all_gather is collective.
class ThreadParts {
 public:
  explicit ThreadParts(std::size_t count) : table_(count), barrier_(static_cast<std::ptrdiff_t>(count)) {}
  std::size_t count() const { return table_.size(); }
  std::vector<std::string> all_gather(std::size_t part, const std::string& mine) {
    table_[part] = mine;
    barrier_.arrive_and_wait();
    std::vector<std::string> all = table_;
    barrier_.arrive_and_wait();  // nobody writes the next round before everyone has read
    return all;
  }

 private:
  std::vector<std::string> table_;
  std::barrier<> barrier_;
};

class ThreadSharding final : public Sharding {
 public:
  ThreadSharding(ThreadParts& parts, std::size_t part) : parts_(parts), part_(part) {}
  std::size_t parts() const override { return parts_.count(); }
  std::size_t part() const override { return part_; }
  std::vector<std::string> all_gather(const std::string& mine) const override { return parts_.all_gather(part_, mine); }

 private:
  ThreadParts& parts_;
  std::size_t part_;
};

// Runs work(sharding) on `count` threads, one per part; returns each part's result.
template <class Work>
std::vector<std::string> on_parts(std::size_t count, Work work) {
  ThreadParts parts(count);
  std::vector<std::string> results(count);
  std::vector<std::thread> threads;
  for (std::size_t p = 0; p < count; ++p)
    threads.emplace_back([&, p] {
      const ThreadSharding sharding(parts, p);
      results[p] = work(sharding);
      release_thread_number_caches();
    });
  for (auto& t : threads) t.join();
  return results;
}

}  // namespace seqi_test
