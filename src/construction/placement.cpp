// Phase P (lem:shrink, lem:placement): one hat per leader moves it to its place P_jl;
// the first placement layer also shrinks every other token into B(C e1, r0).
#include <algorithm>
#include <set>

#include "seqi/construction/construction.hpp"
#include "seqi/construction/hats.hpp"

namespace seqi {
namespace {

Point on_plane(int d, const Rational& x1, const Rational& x2) {
  Point p = Point::Zero(d);
  p[0] = x1;
  p[1] = x2;
  return p;
}

// Parameters t of the circle leaders, evenly spaced in [-1/2, 1/2] (cos <= -3/5).
std::vector<Rational> circle_parameters(std::size_t count) {
  std::vector<Rational> t;
  if (count == 1) return {Rational(0)};
  for (std::size_t k = 0; k < count; ++k)
    t.emplace_back(Rational(2 * static_cast<long>(k) - static_cast<long>(count - 1),
                            2 * static_cast<long>(count - 1)));
  return t;
}

// Largest 2^-k (k >= 0) with eps^2 * max |x|^2 <= r0^2; precondition r0 > 0. The exponent
// starts from the bit lengths (a lower bound of the answer), so at most a few exact
// comparisons follow, whatever the size of the coordinates.
Rational shrink_factor(const std::vector<Point>& pts, const Rational& r0) {
  Rational m = 0;
  for (const auto& x : pts) m = std::max(m, norm_sq(x));
  if (m == 0) return 1;
  const Rational ratio = m / (r0 * r0);  // want the least k with ratio <= 4^k
  using boost::multiprecision::msb;
  const long long e = static_cast<long long>(msb(numerator(ratio))) - static_cast<long long>(msb(denominator(ratio))) - 1;
  // ratio > 2^e, so every k with 2k <= e fails: the least k is at least max(0, floor(e/2)).
  std::size_t k = e > 0 ? static_cast<std::size_t>(e / 2) : 0;
  while (ratio > Rational(Integer(1) << (2 * k))) ++k;
  return Rational(Integer(1), Integer(1) << k);
}

// Smallest distance from t to a value of the set (1 when the set is empty); 0 on a hit.
Rational distance_to_set(const std::set<Rational>& s, const Rational& t) {
  Rational best = 1;
  auto it = s.lower_bound(t);
  if (it != s.end()) best = std::min(best, *it - t);
  if (it != s.begin()) best = std::min(best, t - *std::prev(it));
  return best;
}

}  // namespace

void build_placement(const Dataset& data, TokenState& c, const SelfAttention<Rational>& first_sa,
                     Rng& rng, Construction& out) {
  auto& rec = out.record.placement;
  const int d = data.dimension;
  rec.C = 4;
  rec.r0 = 1;
  rec.eps = shrink_factor(c.tokens, rec.r0);
  const Point C_e1 = on_plane(d, rec.C, 0);

  // Leaders: the first m_j tokens of X_j (input order); targets y_jl in output order.
  std::vector<std::size_t> leader_tokens;
  for (std::size_t j = 0; j < c.sequences(); ++j) {
    const std::size_t m = data.pairs[j].output.size();
    const Rational Rj(9 + static_cast<long>(j));
    rec.R.push_back(Rj);
    rec.rho.push_back(Rj);
    rec.circle_t.push_back(m > 1 ? circle_parameters(m - 1) : std::vector<Rational>{});
    std::vector<std::size_t> leaders;
    std::vector<Point> placed{on_plane(d, Rj, 0)};
    for (std::size_t l = 0; l < m; ++l) leaders.push_back(c.begin[j] + l);
    for (const auto& t : rec.circle_t.back()) {
      const Rational den = t * t + 1;
      placed.push_back(on_plane(d, Rj * (t * t - 1) / den, Rj * 2 * t / den));
    }
    leader_tokens.insert(leader_tokens.end(), leaders.begin(), leaders.end());
    rec.leaders.push_back(std::move(leaders));
    rec.placed.push_back(std::move(placed));
  }
  std::vector<Point> places;
  for (const auto& p : rec.placed) places.insert(places.end(), p.begin(), p.end());

  // Common reading direction: each leader's reading differs from every other token's and,
  // after the shrink, from every place already taken (lem:placement).
  std::vector<Rational> delta(leader_tokens.size());
  choose_generic("placement reading direction", 4 + Integer(c.tokens.size()), [&](const Integer& range) {
    rec.reading = rng.integer_vector(d, range);
    std::vector<std::pair<Rational, std::size_t>> sorted;
    for (std::size_t i = 0; i < c.tokens.size(); ++i) sorted.emplace_back(dot(rec.reading, c.tokens[i]), i);
    std::sort(sorted.begin(), sorted.end());
    std::vector<Rational> gap(c.tokens.size(), Rational(1));
    for (std::size_t k = 0; k + 1 < sorted.size(); ++k) {
      Rational g = sorted[k + 1].first - sorted[k].first;
      gap[sorted[k].second] = std::min(gap[sorted[k].second], g);
      gap[sorted[k + 1].second] = std::min(gap[sorted[k + 1].second], g);
    }
    std::set<Rational> taken;
    for (std::size_t k = 0; k < leader_tokens.size(); ++k) {
      const std::size_t q = leader_tokens[k];
      Rational g = gap[q];
      if (k > 0) {  // reads shrunk coordinates eps x + C e1
        g = std::min(g * rec.eps, distance_to_set(taken, rec.eps * dot(rec.reading, c.tokens[q]) +
                                                               dot(rec.reading, C_e1)));
      }
      if (g == 0) return false;
      delta[k] = dyadic_floor_at_most_one(g);
      taken.insert(dot(rec.reading, places[k]));
    }
    return true;
  }, out.record.choices);

  for (std::size_t k = 0; k < leader_tokens.size(); ++k) {
    const Point& q = c.tokens[leader_tokens[k]];
    Block<Rational> block{SelfAttention<Rational>::identity(), {}, Phase::placement};
    if (k == 0) {
      block.sa = first_sa;
      const Point D = places[k] - (q * rec.eps + C_e1);
      block.ff = shrink_hat_layer(rec.reading, dot(rec.reading, q), delta[k], D, rec.eps, C_e1);
    } else {
      const Point now = q * rec.eps + C_e1;
      block.ff = hat_layer(rec.reading, dot(rec.reading, now), delta[k], places[k] - now);
    }
    out.model.blocks.push_back(std::move(block));
  }
  for (auto& x : c.tokens) x = x * rec.eps + C_e1;
  for (std::size_t k = 0; k < leader_tokens.size(); ++k) c.tokens[leader_tokens[k]] = places[k];
}

}  // namespace seqi
