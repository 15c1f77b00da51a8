// Isolation of one point's reading (the precondition of lem:hat).
#pragma once
#include <optional>
#include <vector>

#include "seqi/numbers/rational.hpp"

namespace seqi {

// min(1, min |r.x - r.q|) over the points x != q of pts (points equal to q are q itself);
// nullopt when some other point has exactly the reading of q.
std::optional<Rational> isolation_gap(const Point& r, const std::vector<Point>& pts, const Point& q);

}  // namespace seqi
