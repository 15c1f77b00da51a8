// Test oracle: the number of distinct target points of a dataset, counted pairwise with exact
// equality (independent of the engine's lexicographic sort).
#pragma once
#include <vector>

#include "seqi/core/dataset.hpp"

inline std::size_t distinct_targets(const seqi::Dataset& data) {
  std::vector<seqi::Point> seen;
  for (const auto& pair : data.pairs)
    for (const auto& y : pair.output) {
      bool found = false;
      for (const auto& s : seen) found = found || seqi::equal_points(s, y);
      if (!found) seen.push_back(y);
    }
  return seen.size();
}
