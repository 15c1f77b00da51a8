// Slot order of the grouped circle places that spreads the leaders of one sequence over the arc
// (lem:spread-slots in proofs/spread-slots.tex): Lemma P's neighbour gap of two circle leaders
// of one sequence is 2 rho^2 (t - t')^2 / ((1 + t^2)(1 + t'^2)), so adjacent slots of one
// sequence would leave a margin of order 1 / sum(m)^2.
#pragma once
#include <cstddef>
#include <vector>

#include "seqi/core/dataset.hpp"

namespace seqi {

// Slot of every cluster (j, l), j-major, given the target group of every cluster (equal targets,
// equal group): a permutation of 0..sum(m)-1 in which every group occupies consecutive slots.
// Groups are ordered by the smallest key (l / m_j, j) of their clusters (0-based l), the
// clusters of a group by index; with singleton groups and every m_j = m, cluster (j, l) gets
// slot l N + j, so two clusters of one sequence are N slots apart.
std::vector<std::size_t> spread_slots(const Dataset& data, const std::vector<std::size_t>& group);

// Smallest slot distance between two circle leaders (l >= 2, 1-based) of one sequence; sum(m)
// when no sequence has two.
std::size_t smallest_circle_slot_distance(const Dataset& data, const std::vector<std::size_t>& slot);

}  // namespace seqi
