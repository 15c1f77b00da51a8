// Leader places grouped by target (lem:grouped-places): sort the clusters by target and give
// them consecutive slots on the collapse line.
#include "seqi/construction/grouped_places.hpp"

#include <algorithm>
#include <numeric>

#include "seqi/construction/spread_slots.hpp"
#include "seqi/numbers/point_set.hpp"

namespace seqi {

std::vector<std::size_t> target_groups(const Dataset& data) {
  std::vector<Point> targets;
  for (const auto& pair : data.pairs) targets.insert(targets.end(), pair.output.begin(), pair.output.end());
  const auto order = lex_order(targets);
  std::vector<std::size_t> group(targets.size());
  std::size_t g = 0;
  for (std::size_t i = 0; i < order.size(); ++i) {
    if (i > 0 && !equal_points(targets[order[i]], targets[order[i - 1]])) ++g;
    group[order[i]] = g;
  }
  return group;
}

std::vector<std::size_t> slots_by_target(const Dataset& data) {
  const auto group = target_groups(data);
  std::vector<std::size_t> by_slot(group.size());
  std::iota(by_slot.begin(), by_slot.end(), 0);
  std::stable_sort(by_slot.begin(), by_slot.end(), [&](std::size_t a, std::size_t b) { return group[a] < group[b]; });
  std::vector<std::size_t> slot(group.size());
  for (std::size_t s = 0; s < by_slot.size(); ++s) slot[by_slot[s]] = s;
  return slot;
}

namespace {

// Parameters t of the circle leaders of one sequence, evenly spaced in [-1/2, 1/2] (cos <= -3/5).
std::vector<Rational> circle_parameters(std::size_t count) {
  std::vector<Rational> t;
  if (count == 1) return {Rational(0)};
  for (std::size_t k = 0; k < count; ++k)
    t.emplace_back(Rational(2 * static_cast<long>(k) - static_cast<long>(count - 1),
                            2 * static_cast<long>(count - 1)));
  return t;
}

// (Almost) every target distinct: nothing worth grouping. R_j = rho_j = 9 + j h and per-sequence circles
// with evenly spaced parameters (lem:bounded-places): the best conditioned layout.
GroupedPlaces ungrouped_places(const Dataset& data, const Rational& h) {
  GroupedPlaces out;
  for (std::size_t j = 0; j < data.pairs.size(); ++j) {
    const std::size_t m = data.pairs[j].output.size();
    out.R.push_back(9 + h * static_cast<long>(j));
    out.rho.push_back(out.R.back());
    out.circle_t.push_back(m > 1 ? circle_parameters(m - 1) : std::vector<Rational>{});
  }
  return out;
}

}  // namespace

namespace {

std::size_t distinct_groups(const std::vector<std::size_t>& groups) {
  return groups.empty() ? 0 : *std::max_element(groups.begin(), groups.end()) + 1;
}

// lem:grouped-places' case (2): not every m_j = 1 (H5) and at most 2 repeated targets. One flat
// hat per cluster then costs sum(m) - D <= 2 more blocks than one per target, within the bound
// K + sum(m) + D + 2, and the ungrouped circles are better conditioned.
bool ungrouped_case(const Dataset& data, const std::vector<std::size_t>& groups) {
  const std::size_t S = groups.size();
  return S != data.pairs.size() && S - distinct_groups(groups) <= 2;
}

}  // namespace

std::size_t runs_of_grouped_places(const Dataset& data) {
  const auto groups = target_groups(data);
  return ungrouped_case(data, groups) ? groups.size() : distinct_groups(groups);
}

GroupedPlaces grouped_places(const Dataset& data) {
  GroupedPlaces out;
  const auto groups = target_groups(data);
  const std::size_t N = data.pairs.size(), S = groups.size();
  const bool classification = S == N;  // every m_j = 1 (H5)
  // Slots by target, unless some sequence has two circle leaders: then spread by phase l / m_j so
  // that they are far apart on the arc (lem:spread-slots).
  const bool two_circle_leaders = std::any_of(data.pairs.begin(), data.pairs.end(), [](const SequencePair& p) {
    return p.output.size() >= 3;
  });
  const auto slot = two_circle_leaders ? spread_slots(data, groups) : slots_by_target(data);
  const Rational h = dyadic_floor_at_most_one(Rational(9, static_cast<long>(std::max<std::size_t>(N, 9))));
  if (ungrouped_case(data, groups)) return ungrouped_places(data, h);
  const Rational rho = 7, t0(5, 16), span(3, 16);
  auto t_of = [&](std::size_t s) { return t0 + span * Rational(static_cast<long>(s), static_cast<long>(S - 1)); };
  auto f = [](const Rational& t) { return (t * t + 8 * t - 1) / (t * t + 1); };  // gamma(t) + 4 sigma(t)
  std::size_t k = 0;  // cluster index, j-major
  for (std::size_t j = 0; j < N; ++j) {
    const std::size_t m = data.pairs[j].output.size();
    if (classification) {
      out.R.push_back(9 + h * static_cast<long>(slot[k++]));
      out.rho.push_back(out.R.back());
      out.circle_t.emplace_back();
      continue;
    }
    out.R.push_back(rho * f(t_of(slot[k++])));
    out.rho.push_back(rho);
    out.circle_t.emplace_back();
    for (std::size_t l = 1; l < m; ++l) out.circle_t.back().push_back(t_of(slot[k++]));
  }
  if (!classification) {
    out.collapse = std::pair{Rational(1), Rational(4)};
    if (two_circle_leaders) out.circle_slot_distance = smallest_circle_slot_distance(data, slot);
  }
  return out;
}

}  // namespace seqi
