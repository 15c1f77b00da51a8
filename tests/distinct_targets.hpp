// Test oracle: the number of distinct target points of a dataset, counted pairwise with exact
// equality (independent of the engine's lexicographic sort).
#pragma once
#include <optional>
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

// The number of interpolation blocks lem:grouped-places promises: D when every m_j = 1 or when
// grouping saves more than 2 blocks (sum(m) - D > 2); otherwise the ungrouped places only
// promise at most D + 2 (nullopt).
inline std::optional<std::size_t> promised_runs(const seqi::Dataset& data) {
  const std::size_t D = distinct_targets(data), sm = data.sum_m();
  if (sm == data.pairs.size() || sm - D > 2) return D;
  return std::nullopt;
}
