#include "seqi/construction/leader_construction.hpp"

#include <memory>
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

PhaseS build_phase_s(const Dataset& data, const Construction& empty, unsigned threads,
                     const std::vector<int>& halvings) {
  auto config = std::make_shared<LiftedInputs>(data, threads);
  PhaseS phase{nullptr, Rng(empty.record.seed), empty, Rational(0), 0, std::nullopt, {}};
  phase.sizes = build_separation(*config, phase.rng, phase.out, threads, halvings);
  if (!phase.sizes.front())
    throw ConstructionError("the shift with v / 2^" + std::to_string(halvings.front()) + " leaves two tokens equal");
  phase.config = std::move(config);
  if (phase.out.record.separation.shift_used) phase.shift_choice = phase.out.record.choices.size() - 1;
  phase.norm = exact_norm_sq(phase.out.model, threads);
  phase.plateaus = with_lift_plateaus(data, *phase.sizes.front(), phase.out);
  return phase;
}

LeaderConstruction::LeaderConstruction(const Dataset& data, const PhaseS& phase, const Separation& sep,
                                       Construction& out, unsigned threads)
    : data_(data), phase_(phase), sep_(sep), out_(out), rng_(phase.rng) {
  tokens_ = std::make_unique<ShiftedTokens>(*phase.config, sep.v, sep.s);
  plan_ = plan_placement(data, *tokens_, rng_, out, threads);
}

LeaderConstruction::~LeaderConstruction() = default;

std::optional<Rational> LeaderConstruction::finish(const Execution& exec, const std::optional<Rational>& lighter_than) {
  std::optional<Rational> budget;  // what Phase P may add
  if (lighter_than) {
    if (phase_.norm >= *lighter_than) return phase_.norm;
    budget = *lighter_than - phase_.norm;
  }
  if (auto placed = add_placement_hats(*tokens_, sep_.shift, plan_, phase_.plateaus, exec, budget, out_))
    return phase_.norm + *placed;  // at least this: ||theta||^2 only grows with blocks
  build_collapse_and_interpolation(data_, rng_, out_);  // every unit is built balanced (lem:relu-rescaling)
  return std::nullopt;
}

}  // namespace seqi
