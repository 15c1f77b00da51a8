// Re-checks of the construction's own claims on the certified forward pass, each citing its
// lemma: distinct tokens after separation (lem:separation), leaders at their places and the
// rest in the ball B(C e1, r0) (lem:placement, lem:shrink), distinct collapse values with
// 4 df < g (lem:collapse), and the order of the flat hats (lem:interpolation).
#pragma once
#include "seqi/certification/certificate.hpp"

namespace seqi {

// On the tokens just before the collapse block.
void add_placement_checks(Certificate& cert, const TokenState& before_collapse, const Construction& built);

// The collapse block's attention layer is (rho, alpha I, v a^T) with alpha > 0 and exactly the
// record's v and a (lem:collapse): the softmax certificate evaluates the layer through v and a,
// so it must first establish that the layer is that map. Returns whether the check passed.
bool add_collapse_layer_check(Certificate& cert, const Construction& built);

// On the record's collapse values, runs, windows and targets (lem:collapse, lem:run-interpolation).
void add_collapse_and_order_checks(Certificate& cert, const Dataset& data, const Construction& built);

// Block counts of our construction (lem:fewer-blocks-count): L = K + sum(m) + runs and
// L <= K + sum(m) + D + 2 (D distinct targets); fills counts.distinct_targets and the bound.
void add_block_count_checks(Certificate& cert, const Dataset& data, const Construction& built);

}  // namespace seqi
