// The checks of lem:hinge-interpolation (proofs/hinge-interpolation.tex) for a mean collapse
// whose tokens go to their targets by hinges: they replace the flat hats' run and count checks.
#pragma once
#include "seqi/certification/certificate.hpp"
#include "seqi/construction/construction.hpp"

namespace seqi {

// Collapse values pairwise distinct; r . v = 1 and r . y equal for every target; every attention
// layer after block 1's the identity and every unit of every layer but the last has an output
// column orthogonal to r (so every layer reads z_j until the last). Precondition:
// built.record.interpolation.by_hinges.
void add_hinge_structure_checks(Certificate& cert, const Dataset& data, const Construction& built);

// Counts (cert.counts set by count_model): blocks = ceil((hinges + 2) / 4) <= ceil((N + 1) / 4)
// and parameters = (2d + 1) units + 4 blocks + 2d; fills the counts' construction bound.
void add_hinge_count_checks(Certificate& cert, const Dataset& data, const Construction& built);

}  // namespace seqi
