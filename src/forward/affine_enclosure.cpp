#include "seqi/forward/affine_enclosure.hpp"

#include <algorithm>

namespace seqi {

IntervalBox box_of(const AffineEnclosure& x, unsigned precision_bits) {
  IntervalBox b;
  const std::size_t d = x.dimension();
  b.reserve(d);
  for (std::size_t r = 0; r < d; ++r) {
    const auto ri = static_cast<Eigen::Index>(r);
    std::vector<Interval> terms{Interval(x.p[ri], precision_bits)};
    for (std::size_t k = 0; k < x.g.size(); ++k)
      if (x.g[k][ri] != 0) terms.push_back(x.g[k][ri] * x.c[k]);
    b.push_back(sum(terms));
  }
  return b;
}

Interval reading_of(const AffineEnclosure& x, const Point& a, const Rational& b, unsigned precision_bits) {
  std::vector<Interval> terms{Interval(dot(a, x.p) + b, precision_bits)};
  for (std::size_t k = 0; k < x.g.size(); ++k)
    if (const Rational ak = dot(a, x.g[k]); ak != 0) terms.push_back(ak * x.c[k]);
  return sum(terms);
}

AffineEnclosure add_independent(const AffineEnclosure& a, const AffineEnclosure& b) {
  AffineEnclosure s{a.p + b.p, a.g, a.c};
  s.g.insert(s.g.end(), b.g.begin(), b.g.end());
  s.c.insert(s.c.end(), b.c.begin(), b.c.end());
  return s;
}

void drop_zero_generators(AffineEnclosure& x) {
  std::size_t kept = 0;
  for (std::size_t k = 0; k < x.g.size(); ++k) {
    if (x.g[k].isZero() || (x.c[k].lower() == 0 && x.c[k].upper() == 0)) continue;
    if (kept != k) {
      x.g[kept] = std::move(x.g[k]);
      x.c[kept] = std::move(x.c[k]);
    }
    ++kept;
  }
  x.g.resize(kept, Point());
  x.c.erase(x.c.begin() + static_cast<std::ptrdiff_t>(kept), x.c.end());
}

void limit_generators(AffineEnclosure& x, unsigned precision_bits) {
  drop_zero_generators(x);
  const std::size_t d = x.dimension();
  if (x.g.size() <= d) return;
  AffineEnclosure offset{Point::Zero(x.p.size()), std::move(x.g), std::move(x.c)};
  const IntervalBox spread = box_of(offset, precision_bits);
  x.g.clear();
  x.c.clear();
  for (std::size_t r = 0; r < d; ++r) {
    x.g.push_back(Point::Unit(static_cast<Eigen::Index>(d), static_cast<Eigen::Index>(r)));
    x.c.push_back(spread[r]);
  }
  drop_zero_generators(x);
}

AffineEnclosure enclosure_of_box(const IntervalBox& b) {
  AffineEnclosure x{midpoint(b), {}, {}};
  const std::size_t d = b.size();
  for (std::size_t r = 0; r < d; ++r) {
    const auto ri = static_cast<Eigen::Index>(r);
    x.g.push_back(Point::Unit(static_cast<Eigen::Index>(d), ri));
    x.c.push_back(b[r] - x.p[ri]);
  }
  drop_zero_generators(x);
  return x;
}

}  // namespace seqi
