// Slots of the grouped places ordered by the phase l / m_j of their clusters (lem:spread-slots).
#include "seqi/construction/spread_slots.hpp"

#include <algorithm>
#include <numeric>
#include <optional>

namespace seqi {

namespace {

// Key (l / m_j, j) of cluster (j, l): exact, so the order does not depend on rounding.
struct PhaseKey {
  Rational phase;
  std::size_t j = 0;
  bool operator<(const PhaseKey& o) const { return phase != o.phase ? phase < o.phase : j < o.j; }
};

}  // namespace

std::vector<std::size_t> spread_slots(const Dataset& data, const std::vector<std::size_t>& group) {
  const std::size_t groups = group.empty() ? 0 : *std::max_element(group.begin(), group.end()) + 1;
  std::vector<std::optional<PhaseKey>> key(groups);
  std::vector<std::vector<std::size_t>> members(groups);
  std::size_t k = 0;  // cluster index, j-major
  for (std::size_t j = 0; j < data.pairs.size(); ++j) {
    const std::size_t m = data.pairs[j].output.size();
    for (std::size_t l = 0; l < m; ++l, ++k) {
      const PhaseKey here{Rational(static_cast<long>(l), static_cast<long>(m)), j};
      auto& best = key[group[k]];
      if (!best || here < *best) best = here;
      members[group[k]].push_back(k);
    }
  }
  std::vector<std::size_t> order(groups);
  std::iota(order.begin(), order.end(), 0);
  std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return *key[a] < *key[b]; });
  std::vector<std::size_t> slot(group.size());
  std::size_t s = 0;
  for (std::size_t g : order)
    for (std::size_t c : members[g]) slot[c] = s++;
  return slot;
}

std::size_t smallest_circle_slot_distance(const Dataset& data, const std::vector<std::size_t>& slot) {
  std::size_t best = slot.size(), k = 0;
  for (const auto& pair : data.pairs) {
    std::vector<std::size_t> circle(slot.begin() + static_cast<std::ptrdiff_t>(k + 1),
                                    slot.begin() + static_cast<std::ptrdiff_t>(k + pair.output.size()));
    k += pair.output.size();
    std::sort(circle.begin(), circle.end());
    for (std::size_t i = 1; i < circle.size(); ++i) best = std::min(best, circle[i] - circle[i - 1]);
  }
  return best;
}

}  // namespace seqi
