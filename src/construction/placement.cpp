// Phase P (lem:shrink, lem:placement): one hat per leader moves it to its place P_jl;
// the first placement layer also shrinks every other token into B(C e1, r0).
#include <algorithm>
#include <set>

#include "seqi/construction/construction.hpp"
#include "seqi/construction/conditioning_choice.hpp"
#include "seqi/construction/gap_places.hpp"
#include "seqi/construction/grouped_places.hpp"
#include "seqi/construction/hat_margin.hpp"
#include "seqi/construction/hats.hpp"
#include "seqi/construction/places_left.hpp"
#include "seqi/core/parallel.hpp"
#include "seqi/numbers/dyadic.hpp"

namespace seqi {
namespace {

Point on_plane(int d, const Rational& x1, const Rational& x2) {
  Point p = Point::Zero(d);
  p[0] = x1;
  p[1] = x2;
  return p;
}

// Largest power of two eps = 2^-k (k any integer: data far below r0 are scaled up, data far
// above scaled down) with eps^2 * m <= r0^2, m = max |x|^2 over the tokens; precondition r0 > 0.
// The exponent starts from floor(log2) of the ratio (a lower bound of the answer), so at most
// two exact comparisons follow, whatever the size of the coordinates.
Rational shrink_factor(const Rational& m, const Rational& r0) {
  if (m == 0) return 1;
  const Rational ratio = m / (r0 * r0);  // want the least k with ratio <= 4^k
  // ratio >= 2^e, so every k with 2k < e fails: the least k is at least ceil(e/2) - 1.
  const long e = floor_log2(ratio);
  long k = (e >= 0 ? (e + 1) / 2 : -((-e) / 2)) - 1;
  while (ratio > pow2(2 * k)) ++k;
  return pow2(-k);
}

// Smallest distance from t to a value of the set (`none` when the set is empty); 0 on a hit.
Rational distance_to_set(const std::set<Rational>& s, const Rational& t, const Rational& none) {
  Rational best = none;
  auto it = s.lower_bound(t);
  if (it != s.end()) best = std::min(best, *it - t);
  if (it != s.begin()) best = std::min(best, t - *std::prev(it));
  return best;
}

}  // namespace

void build_placement(const Dataset& data, const ShiftedTokens& c, const SelfAttention<Rational>& first_sa,
                     Rng& rng, Construction& out, unsigned threads) {
  auto& rec = out.record.placement;
  const int d = data.dimension;
  rec.C = 4;
  rec.r0 = 1;
  rec.eps = shrink_factor(c.max_norm_sq(threads), rec.r0);
  const Point C_e1 = on_plane(d, rec.C, 0);

  // Places grouped by target (lem:grouped-places), in a bounded range (lem:bounded-places).
  GroupedPlaces grouped = grouped_places(data);
  if (grouped.circle_slot_distance)
    out.record.choices.push_back({"slots of the circle places by phase l/m_j (lem:spread-slots): circle leaders of one "
                                  "sequence at least " + std::to_string(*grouped.circle_slot_distance) + " slots apart",
                                  1, Integer(0)});
  rec.R = std::move(grouped.R);
  rec.rho = std::move(grouped.rho);
  rec.circle_t = std::move(grouped.circle_t);
  rec.collapse = grouped.collapse;
  std::vector<std::size_t> m;
  for (std::size_t j = 0; j < c.layout().sequences(); ++j) {
    m.push_back(data.pairs[j].output.size());
    std::vector<Point> placed{on_plane(d, rec.R[j], 0)};
    for (const auto& t : rec.circle_t[j]) {
      const Rational den = t * t + 1;
      placed.push_back(on_plane(d, rec.rho[j] * (t * t - 1) / den, rec.rho[j] * 2 * t / den));
    }
    rec.placed.push_back(std::move(placed));
  }
  std::vector<Point> places;
  for (const auto& p : rec.placed) places.insert(places.end(), p.begin(), p.end());

  // Common reading direction with small dyadic entries, and leaders: per sequence the tokens
  // whose readings are most isolated (lem:leader-choice). Each leader's reading differs from
  // every other token's and, after the shrink, from every place already taken
  // (lem:placement); among candidates the largest smallest relative isolation
  // delta_s / (reading span) wins (lem:relative-window).
  std::vector<Rational> delta(places.size());
  std::vector<std::size_t> leader_tokens;
  struct Candidate {
    Point reading;
    std::vector<std::vector<std::size_t>> leaders;
    std::vector<Rational> delta;
    std::vector<Point> places;
    std::optional<Rational> split;
  };
  std::vector<Candidate> kept;
  const int candidates = c.size() > 4000 ? 2 : 6;
  // Axis or one-arc places (lem:grouped-places (1), (3)): every place reads outside every later
  // window, and each hat keeps its margin from every place: left of every shrunk token
  // (lem:places-left), or, for the axis places, moved into a gap between them (lem:gap-places).
  // Axis places alternate the two kinds of draw, gap first; the better conditioned wins.
  const bool places_left = rec.places_left();
  const std::vector<Point> axis_places = places;
  int draw = 0;
  choose_best_conditioned("placement reading direction and leaders", "relative isolation", candidates,
                          Integer(1) << 20, [&](const Integer& range) -> std::optional<Rational> {
    rec.reading = dyadic_direction(rng, d, static_cast<int>(boost::multiprecision::msb(range)));
    std::vector<Rational> t;  // t[i] = r . x_i
    places = axis_places;
    rec.split.reset();
    if (rec.axis_places() && draw++ % 2 == 0) {
      rec.reading = gap_reading(rec.reading);
      t = c.readings(rec.reading, threads);
      std::vector<Rational> shrunk(t.size());
      const Rational base = dot(rec.reading, C_e1);
      for_each_index(t.size(), threads, [&](std::size_t i) { shrunk[i] = rec.eps * t[i] + base; });
      rec.split = split_reading(std::move(shrunk), abs(rec.reading[1]));
      if (!rec.split) return std::nullopt;
      places = places_reading(axis_places, rec.reading, *rec.split);
      for (std::size_t k = 0; k < places.size(); ++k)  // lem:gap-places (1): keeps Lemma P's margin
        if (!(abs(places[k][1] - axis_places[k][1]) < 2)) return std::nullopt;
    } else if (places_left) {
      auto left = reading_with_places_left(rec.reading, places, [&](const Point& r) { return c.readings(r, threads); },
                                           rec.eps, C_e1, threads, &t);  // lem:places-left
      if (!left) return std::nullopt;
      rec.reading = std::move(*left);
    } else {
      t = c.readings(rec.reading, threads);
    }
    const auto [tmin, tmax] = std::minmax_element(t.begin(), t.end());
    const Rational span = *tmax - *tmin;
    const auto gap = reading_gaps(t, span > 0 ? span : Rational(1));
    rec.leaders = most_isolated_leaders(c.layout(), gap, m);
    leader_tokens.clear();
    for (const auto& l : rec.leaders) leader_tokens.insert(leader_tokens.end(), l.begin(), l.end());
    const Rational base = dot(rec.reading, C_e1);
    Rational lo = base + rec.eps * *tmin, hi = base + rec.eps * *tmax;
    std::vector<Rational> leader_t;
    for (std::size_t q : leader_tokens) leader_t.push_back(t[q]);
    const auto order = decreasing_reading_order(leader_t);  // lem:hat-order
    std::set<Rational> taken, all_places;
    if (places_left)
      for (const auto& p : places) all_places.insert(dot(rec.reading, p));
    for (std::size_t s = 0; s < order.size(); ++s) {
      const std::size_t k = order[s], q = leader_tokens[k];
      Rational g = gap[q];
      if (s > 0)  // reads shrunk coordinates eps x + C e1
        g = std::min(g * rec.eps, distance_to_set(places_left ? all_places : taken, rec.eps * t[q] + base, g * rec.eps));
      if (g == 0) return std::nullopt;
      delta[k] = hat_half_width_with_margin(g);  // lem:hat-margin
      const Rational placed_reading = dot(rec.reading, places[k]);
      taken.insert(placed_reading);
      lo = std::min(lo, placed_reading), hi = std::max(hi, placed_reading);
    }
    Rational worst = delta[order[0]] / (span > 0 ? span : Rational(1));
    for (std::size_t s = 1; s < order.size(); ++s) worst = std::min(worst, delta[order[s]] / (hi - lo));
    return worst;
  }, [&](int) { kept.push_back({rec.reading, rec.leaders, delta, places, rec.split}); },
     [&](int i) {
       auto& k = kept[static_cast<std::size_t>(i)];
       rec.reading = std::move(k.reading);
       rec.leaders = std::move(k.leaders);
       delta = std::move(k.delta);
       places = std::move(k.places);
       rec.split = std::move(k.split);
     }, out.record.choices);
  if (rec.split) {  // the places as moved (lem:gap-places), in the order they were listed
    auto p = places.begin();
    for (auto& placed : rec.placed)
      for (auto& q : placed) q = *p++;
  }
  leader_tokens.clear();
  for (const auto& l : rec.leaders) leader_tokens.insert(leader_tokens.end(), l.begin(), l.end());

  std::vector<Point> leader_x;
  std::vector<Rational> leader_t;
  for (std::size_t q : leader_tokens) {
    leader_x.push_back(c.token(q));
    leader_t.push_back(dot(rec.reading, leader_x.back()));
  }
  GapOrder hat_order{decreasing_reading_order(leader_t), std::vector<bool>(leader_t.size(), false)};  // lem:hat-order
  if (rec.split) {  // lem:gap-places
    const Rational base = dot(rec.reading, C_e1);
    std::vector<Rational> shrunk;
    for (const auto& t : leader_t) shrunk.push_back(rec.eps * t + base);
    hat_order = gap_hat_order(hat_order.order, shrunk, *rec.split);
    const auto below = static_cast<std::size_t>(std::count(hat_order.mirrored.begin(), hat_order.mirrored.end(), true));
    out.record.choices.push_back({"split reading " + rec.split->str() + " (lem:gap-places): every place reads it; " +
                                  std::to_string(below) + " of " + std::to_string(leader_t.size()) +
                                  " leaders placed by mirrored hats", 1, Integer(0)});
  }
  const auto& order = hat_order.order;
  std::vector<Block<Rational>> hats(order.size());  // each hat is built alone, kept in this order
  for_each_index(order.size(), threads, [&](std::size_t s) {
    const std::size_t k = order[s];
    const Point& q = leader_x[k];
    Block<Rational> block{SelfAttention<Rational>::identity(), {}, Phase::placement};
    if (s == 0) {
      block.sa = first_sa;
      const Point D = places[k] - (q * rec.eps + C_e1);
      block.ff = shrink_hat_layer(rec.reading, dot(rec.reading, q), delta[k], D, rec.eps, C_e1);
    } else if (hat_order.mirrored[k]) {  // lem:gap-places: active left of its window
      const Point now = q * rec.eps + C_e1;
      block.ff = hat_layer(Point(-rec.reading), -dot(rec.reading, now), delta[k], places[k] - now);
    } else {
      const Point now = q * rec.eps + C_e1;
      block.ff = hat_layer(rec.reading, dot(rec.reading, now), delta[k], places[k] - now);
    }
    hats[s] = std::move(block);
  });
  for (auto& block : hats) out.model.blocks.push_back(std::move(block));
}

}  // namespace seqi
