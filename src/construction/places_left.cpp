// Placement reading n + 2^-k drawn with the places left of the shrink ball's tokens (lem:places-left).
#include "seqi/construction/places_left.hpp"

#include <algorithm>

namespace seqi {

namespace {

// max over `pts` of a.p + s b.p, given the precomputed a.p and b.p.
Rational max_reading(const std::vector<std::pair<Rational, Rational>>& ab, const Rational& s) {
  Rational best = ab.front().first + s * ab.front().second;
  for (const auto& [a, b] : ab) best = std::max(best, a + s * b);
  return best;
}

std::vector<std::pair<Rational, Rational>> readings(const std::vector<Point>& pts, const Point& n, const Point& w) {
  std::vector<std::pair<Rational, Rational>> ab;
  ab.reserve(pts.size());
  for (const auto& p : pts) ab.emplace_back(dot(n, p), dot(w, p));
  return ab;
}

}  // namespace

std::optional<Point> reading_with_places_left(const Point& drawn, const std::vector<Point>& places,
                                              const std::vector<Point>& tokens, const Rational& eps,
                                              const Point& C_e1) {
  if (places.empty() || tokens.empty()) return std::nullopt;
  Point n = Point::Zero(drawn.size());
  n[0] = Rational(-31, 128);
  n[1] = Rational(-31, 32);
  const auto P = readings(places, n, drawn);
  // Shrunk readings r.(eps x + C e1) = eps (n.x + s w.x) + n.Ce1 + s w.Ce1; minimum = -max of the negation.
  std::vector<std::pair<Rational, Rational>> minus_x;
  for (const auto& [a, b] : readings(tokens, n, drawn)) minus_x.emplace_back(-eps * a, -eps * b);
  const Rational nc = dot(n, C_e1), wc = dot(drawn, C_e1);
  Rational s(1, 2);
  for (int k = 1; k <= 64; ++k, s /= 2) {
    const Rational lowest_token = -max_reading(minus_x, s) + nc + s * wc;
    if (max_reading(P, s) < lowest_token) return Point(n + drawn * s);
  }
  return std::nullopt;
}

}  // namespace seqi
