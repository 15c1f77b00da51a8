// lem:affine-enclosure: a token known to lie in {p + sum_k c_k g_k : c in C}, with the centre
// p and the generators g_k exact rational vectors and C an outward-rounded MPFI box. With no
// generators the token is the exact point p. An exact linear map M acts exactly on p and on
// every g_k, so a later layer that annihilates the generators returns an exact point
// (the general form of lem:direction-carrying).
#pragma once
#include <cstddef>
#include <vector>

#include "seqi/numbers/interval_box.hpp"

namespace seqi {

struct AffineEnclosure {
  Point p;
  std::vector<Point> g;  // generators, one per coefficient
  IntervalBox c;         // c.size() == g.size()

  static AffineEnclosure exact(const Point& x) { return {x, {}, {}}; }
  bool is_exact() const { return g.empty(); }
  std::size_t dimension() const { return static_cast<std::size_t>(p.size()); }
};

// Coordinates p_r + sum_k g_k[r] c_k, each coefficient entering once per coordinate.
IntervalBox box_of(const AffineEnclosure& x, unsigned precision_bits);

// Reading a.x + b as an interval (exact a, b): a.p + b + sum_k (a.g_k) c_k.
Interval reading_of(const AffineEnclosure& x, const Point& a, const Rational& b, unsigned precision_bits);

// The image under x -> M x + shift for an exact linear M given as a callable on points.
template <class LinearMap>
AffineEnclosure map_affine(const AffineEnclosure& x, const LinearMap& M, const Point& shift) {
  AffineEnclosure y{M(x.p) + shift, {}, x.c};
  y.g.reserve(x.g.size());
  for (const auto& gk : x.g) y.g.push_back(M(gk));
  return y;
}

// a + b for tokens with independent coefficients: centres added, generators concatenated.
AffineEnclosure add_independent(const AffineEnclosure& a, const AffineEnclosure& b);

// Removes generators that are exactly zero or whose coefficient is exactly 0.
void drop_zero_generators(AffineEnclosure& x);

// Keeps at most d generators: with more, the generators' contribution is enclosed
// coordinatewise (generators e_1..e_d). Same set or a superset of points.
void limit_generators(AffineEnclosure& x, unsigned precision_bits);

// An enclosure of the box b as p = midpoint(b), generators e_r, coefficients b_r - p_r.
AffineEnclosure enclosure_of_box(const IntervalBox& b);

}  // namespace seqi
