#include "seqi/construction/leader_construction.hpp"

#include <string>

#include "seqi/construction/grouped_places.hpp"
#include "seqi/construction/hats.hpp"

namespace seqi {
namespace {

// lem:plateau-hat: the hats that carry a plateau within lem:counts' bound, lifts first. Rebuilds
// the first lift blocks with their plateau (the same exact map) and logs the choice; returns how
// many placement hats after the shrink layer carry one.
std::size_t with_lift_plateaus(const Dataset& data, const Separation& sep, Construction& out) {
  const auto& rec = out.record.separation;
  const std::size_t sum_m = data.sum_m(), lifts = sep.lifts.size();
  const std::size_t plateaus =
      plateau_hats_within_bound(static_cast<std::size_t>(data.dimension), sum_m, lifts, rec.shift_used,
                                runs_of_grouped_places(data));
  const std::size_t on_lifts = std::min(plateaus, lifts);
  for (std::size_t k = 0; k < on_lifts; ++k) out.model.blocks[k].ff = move_layer(sep.lifts[k], true);
  out.record.choices.push_back({"hats with a plateau of half-width delta/16 (lem:plateau-hat, within lem:counts' "
                                "parameter bound): " + std::to_string(on_lifts) + " of " + std::to_string(lifts) +
                                    " lifts, " + std::to_string(plateaus - on_lifts) + " of " +
                                    std::to_string(sum_m > 0 ? sum_m - 1 : 0) + " placement hats after the shrink",
                                1, Integer(0)});
  return plateaus - on_lifts;
}

}  // namespace

LeaderConstruction::LeaderConstruction(const Dataset& data, Construction& out, unsigned threads, int shift_halvings)
    : data_(data), out_(out), rng_(out.record.seed), config_(inputs_of(data, threads)),
      sep_(build_separation(config_, rng_, out, threads, shift_halvings)), phase_s_norm_(exact_norm_sq(out.model, threads)) {
  tokens_ = std::make_unique<ShiftedTokens>(data, config_, out.record.separation.lifts > 0, sep_.v, sep_.s);
  plateaus_ = with_lift_plateaus(data, sep_, out);
  plan_ = plan_placement(data, *tokens_, rng_, out, threads);
}

LeaderConstruction::~LeaderConstruction() = default;

std::optional<Rational> LeaderConstruction::finish(const Execution& exec, const std::optional<Rational>& lighter_than) {
  std::optional<Rational> budget;  // what Phase P may add
  if (lighter_than) {
    if (phase_s_norm_ >= *lighter_than) return phase_s_norm_;
    budget = *lighter_than - phase_s_norm_;
  }
  if (auto placed = add_placement_hats(*tokens_, sep_.shift, plan_, plateaus_, exec, budget, out_))
    return phase_s_norm_ + *placed;  // at least this: ||theta||^2 only grows with blocks
  build_collapse_and_interpolation(data_, rng_, out_);  // every unit is built balanced (lem:relu-rescaling)
  return std::nullopt;
}

}  // namespace seqi
