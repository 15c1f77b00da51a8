// The thin scalar concept shared by layer templates: exact rationals, doubles, intervals.
#pragma once
#include <cmath>

#include "seqi/numbers/rational.hpp"

namespace seqi {

// Converts an exact rational into scalar type S (exact for Rational, nearest for double).
template <class S>
S scalar_from_rational(const Rational& x);

template <>
inline Rational scalar_from_rational<Rational>(const Rational& x) {
  return x;
}

template <>
inline double scalar_from_rational<double>(const Rational& x) {
  return x.convert_to<double>();
}

template <class S>
Vec<S> vector_from_rational(const Point& p) {
  Vec<S> out(p.size());
  for (Eigen::Index i = 0; i < p.size(); ++i) out[i] = scalar_from_rational<S>(p[i]);
  return out;
}

}  // namespace seqi
