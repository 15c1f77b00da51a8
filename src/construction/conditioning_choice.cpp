#include "seqi/construction/conditioning_choice.hpp"

#include <algorithm>
#include <numeric>

#include "seqi/numbers/dyadic.hpp"
#include "seqi/numbers/filtered_order.hpp"

namespace seqi {

Point dyadic_direction(Rng& rng, int d, int bits) {
  const Integer scale = Integer(1) << bits;
  Point r;
  do {
    r = rng.integer_vector(d, scale) / Rational(scale);
  } while (r.isZero());
  return r;
}

Point sparse_dyadic_direction(Rng& rng, int d, int bits, const std::vector<int>& support) {
  const Integer scale = Integer(1) << bits;
  Point r = Point::Zero(d);
  for (int c : support) {
    Integer k;
    do k = rng.integer_in(scale);
    while (k == 0);
    r[c] = Rational(k) / Rational(scale);
  }
  return r;
}

std::vector<Rational> reading_gaps(const std::vector<Point>& pts, const Point& r, const Rational& lone) {
  std::vector<Rational> t;
  t.reserve(pts.size());
  for (const auto& x : pts) t.push_back(dot(r, x));
  return reading_gaps(t, lone);
}

std::vector<Rational> reading_gaps(const std::vector<Rational>& t, const Rational& lone) {
  const std::vector<std::size_t> sorted = increasing_order(t);
  std::vector<Rational> gap(t.size(), lone);
  for (std::size_t k = 0; k + 1 < sorted.size(); ++k) {
    const Rational g = t[sorted[k + 1]] - t[sorted[k]];
    for (std::size_t i : {sorted[k], sorted[k + 1]})
      if (g < gap[i]) gap[i] = g;
  }
  return gap;
}

std::vector<std::vector<std::size_t>> most_isolated_leaders(const TokenState& c, const std::vector<Rational>& gap,
                                                            const std::vector<std::size_t>& m) {
  std::vector<std::vector<std::size_t>> leaders;
  for (std::size_t j = 0; j < c.sequences(); ++j) {
    std::vector<std::size_t> idx(c.size_of(j));
    std::iota(idx.begin(), idx.end(), c.begin[j]);
    std::stable_sort(idx.begin(), idx.end(), [&](std::size_t a, std::size_t b) { return gap[a] > gap[b]; });
    idx.resize(m[j]);
    leaders.push_back(std::move(idx));
  }
  return leaders;
}

std::optional<Rational> smallest_relative_gap(std::vector<Rational> values) {
  if (values.size() < 2) return std::nullopt;
  std::sort(values.begin(), values.end());
  const Rational top = std::max(abs(values.front()), abs(values.back()));
  if (top == 0) return std::nullopt;
  Rational gap = values[1] - values[0];
  for (std::size_t k = 2; k < values.size(); ++k) gap = std::min(gap, values[k] - values[k - 1]);
  return gap / top;
}

void choose_best_conditioned(const std::string& what, const std::string& score_name, int candidates,
                             const Integer& initial_range, const std::function<std::optional<Rational>(const Integer&)>& draw,
                             const std::function<void(int)>& keep, const std::function<void(int)>& restore,
                             std::vector<ChoiceLog>& log) {
  std::optional<Rational> best;
  int best_index = 0, attempts = 0;
  Integer range = initial_range;
  for (int i = 0; i < candidates; ++i) {
    std::optional<Rational> score;
    std::vector<ChoiceLog> inner;
    choose_generic(what, initial_range, [&](const Integer& rg) {
      score = draw(rg);
      return score.has_value();
    }, inner);
    attempts += inner.back().attempts;
    range = std::max(range, inner.back().final_range);
    keep(i);
    if (!best || *score > *best) best = score, best_index = i;
  }
  restore(best_index);
  log.push_back({what + " (best of " + std::to_string(candidates) + " by " + score_name + " " + approx_decimal(*best, 3) +
                     ")",
                 attempts, range});
}

}  // namespace seqi
