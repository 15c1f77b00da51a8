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
#include "seqi/model/transformer.hpp"
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
// Hausdorff distance of the dense per-token float run of `model` on pair.input from
// pair.output, relative to max(1, max |y|) (the replays' yardstick).
inline double relative_float_distance(const Transformer<double>& model, const SequencePair& pair) {
  TokenList<double> X, Y;
  double yardstick = 1;
  for (const auto& x : pair.input) X.push_back(vector_from_rational<double>(x));
  for (const auto& y : pair.output) {
    Y.push_back(vector_from_rational<double>(y));
    yardstick = std::max(yardstick, Y.back().norm());
  }
  return hausdorff(forward_dense(model, X), Y) / yardstick;
}

inline bool hypotheses_hold(Dataset& data) {
  try {
    check_hypotheses(data, data.name);
    return true;
  } catch (const InputError&) {
    return false;
  }
}

}  // namespace seqi::testing
