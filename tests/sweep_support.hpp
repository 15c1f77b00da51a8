// The sweeps' seed, sizes and timing (test_sweep.cpp): SEQI_SEED=<seed> replays a sweep.
#pragma once
#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <exception>
#include <iostream>

#include "seqi/construction/construction.hpp"
#include "seqi/core/dataset.hpp"

namespace seqi_test::sweep {

inline std::uint64_t base_seed() {
  static const std::uint64_t seed = [] {
    const char* s = std::getenv("SEQI_SEED");
    const std::uint64_t v = s ? std::strtoull(s, nullptr, 10) : 20240611;
    std::cout << "sweep: base seed " << v << " (SEQI_SEED=" << v << " replays)\n";
    return v;
  }();
  return seed;
}

// Builds with `seed`, naming the dataset and seed when the construction throws (an exception
// escapes BOOST_TEST_CONTEXT without it).
inline seqi::Construction build_named(const seqi::Dataset& data, std::uint64_t seed) {
  try {
    return seqi::build_interpolating_transformer(data, seed);
  } catch (const std::exception& e) {
    std::cout << "construction threw on " << data.name << " (seed " << seed << "): " << e.what() << "\n";
    throw;
  }
}

// The generator loops until it finds n distinct points (and N distinct input sets), so the
// coordinate grid must be large enough: (2r+1)^d >= 2 max(N, n_max).
inline long smallest_safe_range(int d, std::size_t need, long wanted) {
  for (long r = wanted;; ++r) {
    double pts = 1;
    for (int k = 0; k < d && pts < 1e9; ++k) pts *= static_cast<double>(2 * r + 1);
    if (pts >= static_cast<double>(need)) return r;
  }
}

inline double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

}  // namespace seqi_test::sweep
