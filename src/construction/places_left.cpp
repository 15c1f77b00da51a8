// Placement reading n + 2^-k drawn with the places left of the shrink ball's tokens (lem:places-left).
#include "seqi/construction/places_left.hpp"

#include <algorithm>
#include <utility>

#include "seqi/core/chunks.hpp"

namespace seqi {

namespace {

// (n.p, w.p) per point p.
std::vector<std::pair<Rational, Rational>> readings(const std::vector<Point>& pts, const Point& n, const Point& w) {
  std::vector<std::pair<Rational, Rational>> ab;
  for (const auto& p : pts) ab.emplace_back(dot(n, p), dot(w, p));
  return ab;
}

// (n.x, w.x) per token x, from the tokens' readings along n and along w.
std::vector<std::pair<Rational, Rational>> readings(const TokenReadingsAlong& along, const Point& n, const Point& w) {
  auto a = along(n), b = along(w);
  std::vector<std::pair<Rational, Rational>> ab(a.size());
  for (std::size_t i = 0; i < a.size(); ++i) ab[i] = {std::move(a[i]), std::move(b[i])};
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
                                              const TokenReadingsAlong& token_readings, const Rational& eps,
                                              const Point& C_e1, unsigned threads,
                                              std::vector<Rational>* token_readings_out) {
  if (places.empty()) return std::nullopt;
  Point n = Point::Zero(drawn.size());
  n[0] = Rational(-31, 128);
  n[1] = Rational(-31, 32);
  const auto P = readings(places, n, drawn);
  // Shrunk readings r.(eps x + C e1) = eps (n.x + s w.x) + n.Ce1 + s w.Ce1, least where n.x + s w.x is (eps > 0).
  const auto x = readings(token_readings, n, drawn);
  if (x.empty()) return std::nullopt;
  const Rational nc = dot(n, C_e1), wc = dot(drawn, C_e1);
  Rational s(1, 2);
  for (int k = 1; k <= 64; ++k, s /= 2) {
    const Rational lowest_token = eps * extreme_reading(x, s, false, threads) + nc + s * wc;
    if (extreme_reading(P, s, true, 1) < lowest_token) {
      if (token_readings_out) {
        token_readings_out->resize(x.size());
        for_each_chunk(x.size(), threads, [&](std::size_t, std::size_t first, std::size_t last) {
          for (std::size_t i = first; i < last; ++i) (*token_readings_out)[i] = x[i].first + s * x[i].second;
        });
      }
      return Point(n + drawn * s);
    }
  }
  return std::nullopt;
}

}  // namespace seqi
