// Places of the leaders grouped by target (proofs/fewer-blocks.tex, lem:grouped-places): the
// collapse values z_jl = a . P_jl of all clusters with the same target are consecutive, so
// one flat hat per distinct target suffices (lem:run-interpolation).
#pragma once
#include <optional>
#include <vector>

#include "seqi/core/dataset.hpp"

namespace seqi {

struct GroupedPlaces {
  std::vector<Rational> R, rho;                 // per sequence: P_j1 = R_j e1, circle radius rho_j
  std::vector<std::vector<Rational>> circle_t;  // per sequence: t_jl of leaders l = 2..m_j
  // The collapse direction a = a1 e1 + a2 e2 that orders the values by slot; nullopt when
  // every m_j = 1 (then z_j1 = a1 R_j for every a with a1 = 1).
  std::optional<std::pair<Rational, Rational>> collapse;
  // Circle places on one arc with some sequence holding two circle leaders: the smallest slot
  // distance of two circle leaders of one sequence (lem:spread-slots); nullopt otherwise.
  std::optional<std::size_t> circle_slot_distance;
};

// Group index of every cluster (j, l), j-major: clusters with equal targets y_jl share an index;
// indices increase with the lexicographic order of the targets.
std::vector<std::size_t> target_groups(const Dataset& data);

// Slot of every cluster (j, l), j-major: a permutation of 0..sum(m)-1 increasing with the
// target group (ties by cluster index).
std::vector<std::size_t> slots_by_target(const Dataset& data);

// Every m_j = 1: R_j = 9 + h * slot_j (h the largest power of two <= 9 / max(N, 9)).
// At most 2 repeated targets (sum(m) - D <= 2, little to group): R_j = rho_j = 9 + j h, per-sequence circles with
// evenly spaced t in [-1/2, 1/2]. Otherwise (slots by phase when some m_j >= 3, lem:spread-slots) a = e1 + 4 e2, rho_j = 7 and slot s at t_s = 5/16 + (3/16) s / (S - 1): circle
// leaders take t_s, leader 1 takes R_j = 7 f(t_s), f(t) = (t^2 + 8t - 1) / (t^2 + 1) = a . (gamma, sigma).
GroupedPlaces grouped_places(const Dataset& data);

// The interpolation runs these places give at most (lem:fewer-blocks-count): D, the number of
// distinct targets, when they are grouped (every m_j = 1, or more than 2 repeated targets: then
// the runs are the classes of equal targets exactly, which the certificate checks); otherwise
// sum(m), one run per cluster at most.
std::size_t runs_of_grouped_places(const Dataset& data);

}  // namespace seqi
