// Shared by the placement tests (test_places_left, test_gap_places): random classification-style
// data, and an oracle from the layers' own weights: every placement hat after the shrink layer has
// every pre-activation negative on every place (lem:places-left (3), lem:gap-places (4)). Include
// after boost/test/unit_test.hpp.
#pragma once
#include <cstddef>
#include <random>
#include <string>

#include <cstdint>
#include <utility>

#include "seqi/construction/construction.hpp"

namespace seqi::testing {

// N sequences of n random tokens in dimension d (distinct tokens and sequences: H3), no targets.
inline Dataset random_inputs(std::mt19937_64& g, const std::string& name, std::size_t N, std::size_t n, int d) {
  Dataset data;
  data.name = name;
  data.dimension = d;
  std::uniform_int_distribution<long> c(-9, 9);
  for (std::size_t j = 0; j < N; ++j) {
    SequencePair pair;
    for (std::size_t i = 0; i < n; ++i) {
      Point x(d);
      for (int k = 0; k < d; ++k) x[k] = Rational(c(g), 1 + static_cast<long>(g() % 4));
      x[0] = Rational(static_cast<long>(j * n + i));
      pair.input.push_back(x);
    }
    data.pairs.push_back(std::move(pair));
  }
  return data;
}

// N sequences of n tokens with one target each, from `labels` classes (axis places,
// lem:grouped-places (1)): a classification dataset.
inline Dataset classify_dataset(std::mt19937_64& g, std::size_t N, std::size_t n, int d, long labels) {
  Dataset data = random_inputs(g, "places-left-classify", N, n, d);
  for (auto& pair : data.pairs) {
    Point y = Point::Zero(d);
    y[1] = Rational(static_cast<long>(g() % static_cast<std::uint64_t>(labels)));
    pair.output.push_back(y);
  }
  return data;
}

// Asserts the property; returns the number of placement blocks (the shrink layer included).
inline std::size_t every_later_hat_negative_on_every_place(const Construction& built) {
  std::size_t placement = 0;
  for (const auto& block : built.model.blocks) {
    if (block.phase != Phase::placement || placement++ == 0) continue;  // after the shrink layer
    for (const auto& placed : built.record.placement.placed)
      for (const auto& P : placed) {
        const Vec<Rational> pre = block.ff.U.dense() * P + block.ff.b;
        for (Eigen::Index u = 0; u < pre.size(); ++u) BOOST_TEST(pre[u] < 0);
      }
  }
  return placement;
}

}  // namespace seqi::testing
