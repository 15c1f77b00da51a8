// Placement reading n + 2^-k drawn with the places left of the shrink ball's tokens (lem:places-left).
#include "seqi/construction/places_left.hpp"

#include <algorithm>
#include <utility>

#include "seqi/core/chunks.hpp"

namespace seqi {

namespace {

// n.p and w.p per point, on `threads` threads; n is zero beyond its first two entries.
std::vector<std::pair<Rational, Rational>> readings(const std::vector<Point>& pts, const Point& n, const Point& w,
                                                    unsigned threads) {
  std::vector<std::pair<Rational, Rational>> ab(pts.size());
  for_each_chunk(pts.size(), threads, [&](std::size_t, std::size_t first, std::size_t last) {
    for (std::size_t i = first; i < last; ++i) ab[i] = {n[0] * pts[i][0] + n[1] * pts[i][1], dot(w, pts[i])};
  });
  return ab;
}

// max (largest) or min over the points of a + s b, given their (a, b), on `threads` threads.
Rational extreme_reading(const std::vector<std::pair<Rational, Rational>>& ab, const Rational& s, bool largest,
                         unsigned threads) {
  const auto better = [largest](const Rational& x, const Rational& y) { return largest ? x > y : x < y; };
  std::vector<Rational> best(chunk_count(ab.size(), threads));
  for_each_chunk(ab.size(), threads, [&](std::size_t c, std::size_t first, std::size_t last) {
    best[c] = ab[first].first + s * ab[first].second;
    for (std::size_t i = first + 1; i < last; ++i) {
      Rational t = ab[i].first + s * ab[i].second;
      if (better(t, best[c])) best[c] = std::move(t);
    }
  });
  Rational out = best.front();
  for (const auto& b : best)
    if (better(b, out)) out = b;
  return out;
}

}  // namespace

std::optional<Point> reading_with_places_left(const Point& drawn, const std::vector<Point>& places,
                                              const std::vector<Point>& tokens, const Rational& eps,
                                              const Point& C_e1, unsigned threads,
                                              std::vector<Rational>* token_readings) {
  if (places.empty() || tokens.empty()) return std::nullopt;
  Point n = Point::Zero(drawn.size());
  n[0] = Rational(-31, 128);
  n[1] = Rational(-31, 32);
  const auto P = readings(places, n, drawn, 1);
  // Shrunk readings r.(eps x + C e1) = eps (n.x + s w.x) + n.Ce1 + s w.Ce1, least where n.x + s w.x is (eps > 0).
  const auto x = readings(tokens, n, drawn, threads);
  const Rational nc = dot(n, C_e1), wc = dot(drawn, C_e1);
  Rational s(1, 2);
  for (int k = 1; k <= 64; ++k, s /= 2) {
    const Rational lowest_token = eps * extreme_reading(x, s, false, threads) + nc + s * wc;
    if (extreme_reading(P, s, true, 1) < lowest_token) {
      if (token_readings) {
        token_readings->resize(x.size());
        for_each_chunk(x.size(), threads, [&](std::size_t, std::size_t first, std::size_t last) {
          for (std::size_t i = first; i < last; ++i) (*token_readings)[i] = x[i].first + s * x[i].second;
        });
      }
      return Point(n + drawn * s);
    }
  }
  return std::nullopt;
}

}  // namespace seqi
