#include "seqi/construction/isolation.hpp"

namespace seqi {

std::optional<Rational> isolation_gap(const Point& r, const std::vector<Point>& pts, const Point& q) {
  const Rational t_q = dot(r, q);
  Rational gap = 1;
  for (const auto& x : pts) {
    Rational dist = abs(dot(r, x) - t_q);
    if (dist >= gap) continue;
    if (equal_points(x, q)) continue;
    if (dist == 0) return std::nullopt;
    gap = dist;
  }
  return gap;
}

}  // namespace seqi
