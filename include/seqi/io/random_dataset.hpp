// Seeded generator of valid datasets (H1-H5 hold) for tests, sweeps and benchmarks.
#pragma once
#include <cstdint>

#include "seqi/core/dataset.hpp"

namespace seqi {

struct RandomDatasetSpec {
  std::size_t N = 10;
  std::size_t n_min = 1, n_max = 10;  // n_j uniform in [n_min, n_max]
  std::size_t m_max = 0;              // m_j uniform in [1, min(n_j, m_max)]; 0 means n_j
  int d = 2;
  long coordinate_range = 5;          // coordinates k/q with |k| <= range, q in [1, max_denominator]
  long max_denominator = 1;
  double share_probability = 0.0;     // chance that an input token is drawn from a small shared pool
};

Dataset random_dataset(const RandomDatasetSpec& spec, std::uint64_t seed);

}  // namespace seqi
