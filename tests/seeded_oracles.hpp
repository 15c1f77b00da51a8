// Test helpers shared by the conditioning suites: the printed, replayable base seed and a
// Hausdorff distance of double point sets written from the definition (independent of the
// engine's float_replay).
#pragma once
#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <iostream>
#include <limits>
#include <vector>

#include "seqi/io/hypotheses.hpp"
#include "seqi/numbers/scalar.hpp"

namespace seqi::testing {

// SEQI_SEED or `fallback`, printed once per suite with how to replay it.
inline std::uint64_t base_seed(const char* suite, std::uint64_t fallback = 20261130) {
  static const std::uint64_t seed = [&] {
    const char* s = std::getenv("SEQI_SEED");
    const std::uint64_t v = s ? std::strtoull(s, nullptr, 10) : fallback;
    std::cout << suite << ": base seed " << v << " (SEQI_SEED=" << v << " replays)\n";
    return v;
  }();
  return seed;
}

// Largest distance from a point of one set to the nearest point of the other (both ways).
inline double hausdorff(const std::vector<Vec<double>>& a, const std::vector<Vec<double>>& b) {
  double worst = 0;
  for (int pass = 0; pass < 2; ++pass) {
    const auto& p = pass ? b : a;
    const auto& q = pass ? a : b;
    for (const auto& x : p) {
      double best = std::numeric_limits<double>::infinity();
      for (const auto& y : q) best = std::min(best, (x - y).norm());
      worst = std::max(worst, best);
    }
  }
  return worst;
}

// Whether a generated dataset satisfies H1-H5 (check_hypotheses may normalise it in place).
inline bool hypotheses_hold(Dataset& data) {
  try {
    check_hypotheses(data, data.name);
    return true;
  } catch (const InputError&) {
    return false;
  }
}

}  // namespace seqi::testing
