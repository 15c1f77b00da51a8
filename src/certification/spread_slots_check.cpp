// Exact check of the slot order of the grouped circle places (lem:spread-slots): one run per
// distinct target, and the smallest neighbour gap of Lemma P between two circle leaders of one
// sequence (lem:circle-gap), which the spread order keeps away from 1 / sum(m)^2.
#include <algorithm>

#include "seqi/certification/construction_checks.hpp"
#include "seqi/certification/counts.hpp"
#include "seqi/numbers/rational.hpp"

namespace seqi {

std::optional<Rational> smallest_circle_gap(const PlacementRecord& rec) {
  std::optional<Rational> best;
  for (std::size_t j = 0; j < rec.circle_t.size(); ++j) {
    std::vector<Rational> t = rec.circle_t[j];
    std::sort(t.begin(), t.end());
    for (std::size_t i = 1; i < t.size(); ++i) {
      const Rational dt = t[i] - t[i - 1];  // lem:circle-gap
      const Rational gap = 2 * rec.rho[j] * rec.rho[j] * dt * dt / ((1 + t[i] * t[i]) * (1 + t[i - 1] * t[i - 1]));
      if (!best || gap < *best) best = gap;
    }
  }
  return best;
}

void add_spread_slots_check(Certificate& cert, const Dataset& data, const Construction& built) {
  if (!built.record.placement.collapse) return;  // not the one-arc layout of lem:grouped-places (3)
  const std::size_t runs = built.record.interpolation.runs.size(), D = distinct_target_count(data);
  const auto gap = smallest_circle_gap(built.record.placement);
  cert.add({"grouped circle places: equal targets in consecutive slots, one run per distinct target", "lem:spread-slots", runs == D, true,
            std::to_string(runs) + " runs, " + std::to_string(D) + " distinct targets; smallest circle-neighbour gap " +
                (gap ? approx_decimal(*gap) : std::string("none (no sequence has two circle leaders)"))});
}

}  // namespace seqi
