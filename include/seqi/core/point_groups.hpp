// Equal points found by hashing (residues, seqi/numbers/residue.hpp) instead of sorting all
// points lexicographically: linear work plus an exact lexicographic check of each run of
// equal hashes only. Results are those of the lexicographic method (point_set.hpp).
#pragma once
#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <vector>

#include "seqi/numbers/rational.hpp"

namespace seqi {

// weighted_residue (numbers/residue.hpp) of every point, on `threads` threads (the same result
// for any count); nullopt when p divides a denominator of some point.
std::optional<std::vector<std::uint64_t>> weighted_residues(const std::vector<std::uint64_t>& w,
                                                            const std::vector<Point>& pts, unsigned threads);

// Runs of indices with equal keys, each of size >= 2 and ascending, ordered by key.
std::vector<std::vector<std::size_t>> equal_key_runs(const std::vector<std::uint64_t>& key);

// Groups of >= 2 indices holding one point: indices ascending within a group, groups in
// lexicographic order of their points (as found by a stable lexicographic sort).
std::vector<std::vector<std::size_t>> equal_point_groups(const std::vector<Point>& pts, unsigned threads = 1);
// The same for n points given by point(i), with key[i] = weighted_residue(residue_weights(d), point i)
// precomputed (nullopt: p divides some denominator, and every point is one candidate run).
// point(i) is called only for indices in a run of equal keys, so the points need not be held.
std::vector<std::vector<std::size_t>> equal_point_groups(std::size_t n, const std::optional<std::vector<std::uint64_t>>& key,
                                                         const std::function<Point(std::size_t)>& point);

}  // namespace seqi
