// The thin scalar concept shared by layer templates. Layers store and combine weights of any
// scalar type S (exact rationals, doubles, floats); evaluating a ReLU or an argmax needs
// comparisons that decide, which only OrderedScalar types offer. Intervals are not
// OrderedScalar: a comparison of enclosures can be undecided, so they get their own code
// paths (forward/) that decide every sign exactly or fail.
#pragma once
#include <cmath>
#include <concepts>

#include "seqi/numbers/rational.hpp"

namespace seqi {

template <class S>
struct scalar_traits {
  static constexpr bool ordered = false;  // a < b is a decided fact about the values
  static constexpr bool exact = false;    // + - * / are exact
};
template <>
struct scalar_traits<Rational> {
  static constexpr bool ordered = true;
  static constexpr bool exact = true;
};
template <>
struct scalar_traits<double> {
  static constexpr bool ordered = true;
  static constexpr bool exact = false;
};
template <>
struct scalar_traits<float> {
  static constexpr bool ordered = true;
  static constexpr bool exact = false;
};

template <class S>
concept OrderedScalar = scalar_traits<S>::ordered;

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

// Nearest binary32 (src/numbers/nearest_float.cpp).
template <>
float scalar_from_rational<float>(const Rational& x);

template <class S>
Vec<S> vector_from_rational(const Point& p) {
  Vec<S> out(p.size());
  for (Eigen::Index i = 0; i < p.size(); ++i) out[i] = scalar_from_rational<S>(p[i]);
  return out;
}

}  // namespace seqi
