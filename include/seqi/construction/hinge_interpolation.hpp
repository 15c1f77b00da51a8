// lem:hinge-interpolation (proofs/hinge-interpolation.tex): after the mean collapse every token of
// X_j sits at z_j v. Where the targets read one value c along a direction r (r . y_j = c for every
// j, r . v = 1), the piecewise-linear map through the points (z_j, y_j) is a sum of hinge units
// relu(r.x - zeta_k) whose outputs are orthogonal to r, so every layer but the last reads the
// collapse values unchanged; the last adds the constant y_(1) - zeta_1 v and the hinge -v relu(r.x
// - zeta_1), which removes the tokens' part along v. One hinge per change of slope, four units per
// layer: about N / 4 blocks instead of one flat hat per run.
#pragma once
#include <cstddef>
#include <optional>

#include "seqi/construction/construction.hpp"

namespace seqi {

// Largest N for which the mean collapse also tries hinges: every hinge acts on every token to its
// right, so the exact pass costs O(N^2 / 4) unit evaluations.
constexpr std::size_t kHingeSequenceLimit = 256;

// A reading r with r . y equal for every target y (nonzero, exact): the first nonzero of the
// targets' first value, then e_1, ..., e_d, projected orthogonally to the span of the targets'
// differences; nullopt when that span is the whole space.
std::optional<Point> reading_constant_on_targets(const std::vector<Point>& targets);

// Replaces out's interpolation blocks by the hinge interpolation of the mean collapse recorded in
// out.record.interpolation (a and z set; every m_j = 1). Block 1 keeps the collapse attention with
// the new v. The scale of r (a power of two) is the one of a few whose estimated ||theta||^2 is
// least among those whose estimated float64 error on the targets meets rem:flat-range's goal
// (2^-30 relative). Returns false, out unchanged, where it does not apply (no reading constant
// on the targets, two sequences with one collapse value, or no scale meets the goal).
bool build_hinge_interpolation(const Dataset& data, Construction& out);

}  // namespace seqi
