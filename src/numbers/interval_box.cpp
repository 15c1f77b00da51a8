#include "seqi/numbers/interval_box.hpp"

#include <algorithm>
#include <stdexcept>

namespace seqi {

IntervalBox box_of(const Point& x, unsigned precision_bits) {
  IntervalBox b;
  b.reserve(static_cast<std::size_t>(x.size()));
  for (Eigen::Index k = 0; k < x.size(); ++k) b.emplace_back(x[k], precision_bits);
  return b;
}

Interval dot(const Point& a, const IntervalBox& x) {
  if (static_cast<std::size_t>(a.size()) != x.size() || x.empty()) throw std::invalid_argument("dot: sizes differ");
  std::vector<Interval> terms;
  terms.reserve(x.size());
  for (std::size_t k = 0; k < x.size(); ++k) terms.push_back(a[static_cast<Eigen::Index>(k)] * x[k]);
  return sum(terms);
}

Interval dot(const IntervalBox& a, const IntervalBox& b) {
  if (a.size() != b.size() || a.empty()) throw std::invalid_argument("dot: sizes differ");
  std::vector<Interval> terms;
  terms.reserve(a.size());
  for (std::size_t k = 0; k < a.size(); ++k) terms.push_back(a[k] * b[k]);
  return sum(terms);
}

Interval hull(const Interval& a, const Interval& b) {
  return Interval::hull(std::min(a.lower(), b.lower()), std::max(a.upper(), b.upper()),
                        std::max(a.precision(), b.precision()));
}

IntervalBox hull(const IntervalBox& a, const IntervalBox& b) {
  if (a.size() != b.size()) throw std::invalid_argument("hull: sizes differ");
  IntervalBox h;
  h.reserve(a.size());
  for (std::size_t k = 0; k < a.size(); ++k) h.push_back(hull(a[k], b[k]));
  return h;
}

std::optional<Interval> intersect(const Interval& x, const Rational& lo, const Rational& hi) {
  const Rational l = std::max(x.lower(), lo), h = std::min(x.upper(), hi);
  if (l > h) return std::nullopt;
  return Interval::hull(l, h, x.precision());
}

Point midpoint(const IntervalBox& b) {
  Point m(static_cast<Eigen::Index>(b.size()));
  for (std::size_t k = 0; k < b.size(); ++k) m[static_cast<Eigen::Index>(k)] = (b[k].lower() + b[k].upper()) / 2;
  return m;
}

Rational max_width(const IntervalBox& b) {
  Rational w = 0;
  for (const auto& x : b) w = std::max(w, x.upper() - x.lower());
  return w;
}

}  // namespace seqi
