#include "seqi/replay/replay_sample.hpp"

#include <algorithm>
#include <numeric>

#include "seqi/core/rng.hpp"

namespace seqi {

std::vector<std::size_t> replay_sample(const std::vector<std::size_t>& lengths, double per_token, double budget,
                                       std::uint64_t seed) {
  std::vector<std::size_t> order(lengths.size());
  std::iota(order.begin(), order.end(), std::size_t{0});
  const double total = static_cast<double>(std::accumulate(lengths.begin(), lengths.end(), std::size_t{0}));
  if (per_token * total <= budget) return order;
  Rng rng(seed);
  for (std::size_t i = order.size(); i > 1; --i)  // Fisher-Yates: order[i-1] drawn from the first i
    std::swap(order[i - 1], order[rng.next() % i]);
  std::size_t tokens = 0, taken = 0;
  while (taken < order.size()) {
    const std::size_t next = tokens + lengths[order[taken]];
    if (taken > 0 && per_token * static_cast<double>(next) > budget) break;
    tokens = next;
    ++taken;
  }
  order.resize(taken);
  std::sort(order.begin(), order.end());
  return order;
}

}  // namespace seqi
