// Exact set operations on points: O(n log n) by lexicographic sorting.
#pragma once
#include <cstddef>
#include <optional>
#include <utility>
#include <vector>

#include "seqi/numbers/rational.hpp"

namespace seqi {

// Indices 0..n-1 ordered so that the points are lexicographically nondecreasing.
std::vector<std::size_t> lex_order(const std::vector<Point>& pts);

// First pair (i, j), i != j, with pts[i] == pts[j]; nullopt when all points are distinct.
std::optional<std::pair<std::size_t, std::size_t>> find_equal_pair(const std::vector<Point>& pts);

// Sorted copy without repetitions.
std::vector<Point> as_sorted_set(std::vector<Point> pts);

// True when the two point lists are equal as sets.
bool equal_as_sets(const std::vector<Point>& a, const std::vector<Point>& b);

// Binary search in a sorted set (as_sorted_set).
bool set_contains(const std::vector<Point>& sorted_set, const Point& p);

}  // namespace seqi
