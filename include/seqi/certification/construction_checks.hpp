// Re-checks of the construction's own claims on the certified forward pass, each citing its
// lemma: distinct tokens after separation (lem:separation), leaders at their places and the
// rest in the ball B(C e1, r0) (lem:placement, lem:shrink), distinct collapse values with
// 4 df < g (lem:collapse), and the order of the flat hats (lem:interpolation).
#pragma once
#include "seqi/certification/certificate.hpp"

namespace seqi {

// On the tokens just before the collapse block.
void add_placement_checks(Certificate& cert, const TokenState& before_collapse, const Construction& built,
                          unsigned threads = 1);

// The collapse block's attention layer is (rho, alpha I, v a^T) with alpha > 0 and exactly the
// record's v and a (lem:collapse): the softmax certificate evaluates the layer through v and a,
// so it must first establish that the layer is that map. Returns whether the check passed.
bool add_collapse_layer_check(Certificate& cert, const Construction& built);

// On the record's collapse values, runs, windows and targets (lem:collapse, lem:run-interpolation).
void add_collapse_and_order_checks(Certificate& cert, const Dataset& data, const Construction& built);

// Block counts of our construction (lem:fewer-blocks-count): L = K + sum(m) + runs and
// L <= K + sum(m) + D + 2 (D distinct targets); fills counts.distinct_targets and the bound.
void add_block_count_checks(Certificate& cert, const Dataset& data, const Construction& built);

// Smallest Lemma P neighbour gap rho^2 - <P_l, P_k> = 2 rho^2 (t - t')^2 / ((1 + t^2)(1 + t'^2)) of two
// circle leaders of one sequence adjacent in t (lem:circle-gap); nullopt when no sequence has two.
std::optional<Rational> smallest_circle_gap(const PlacementRecord& rec);

// Grouped circle places (lem:grouped-places (3), slots by phase or by target, lem:spread-slots): exactly one
// interpolation run per distinct target; the detail prints the smallest circle-neighbour gap.
void add_spread_slots_check(Certificate& cert, const Dataset& data, const Construction& built);

// Axis or one-arc places (PlacementRecord::places_left): every place reads at least one
// half-width outside the window of every placement hat after the shrink layer, on the side where
// the hat's units are inactive: left of hats rising along the placement reading (lem:places-left);
// with a split reading (the axis places, lem:gap-places) every place reads it and the hats may
// also fall along the reading (places right of them). Not required (a float-robustness property,
// like lem:hat-margin). Blocks on `threads` threads; the result does not depend on it.
void add_places_left_check(Certificate& cert, const Construction& built, unsigned threads = 1);

}  // namespace seqi
