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
#include "seqi/core/sharding.hpp"
#include "seqi/numbers/exact_sum.hpp"
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

// The places of lem:grouped-places (in a bounded range, lem:bounded-places) recorded in
// out.record.placement (R, rho, circle_t, collapse, placed); returns m_j per sequence.
std::vector<std::size_t> record_grouped_places(const Dataset& data, const ShiftedTokens& c, Construction& out) {
  auto& rec = out.record.placement;
  const int d = data.dimension;
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
  return m;
}

// One draw of the common reading direction (small dyadic entries) and its leaders: per sequence
// the tokens whose readings are most isolated (lem:leader-choice). Each leader's reading
// differs from every other token's and, after the shrink, from every place already taken
// (lem:placement); the draw scores the smallest relative isolation delta_s / (reading span)
// (lem:relative-window), nullopt when invalid. Axis or one-arc places (lem:grouped-places (1),
// (3)): every place reads outside every later window, and each hat keeps its margin from every
// place: left of every shrunk token (lem:places-left), or, for the axis places, moved into a gap
// between them (lem:gap-places). Axis places alternate the two kinds of draw, gap first.
// Writes rec.reading, rec.split, rec.leaders, places and delta (the draw's half-widths).
class LeaderDraw {
 public:
  LeaderDraw(const ShiftedTokens& c, PlacementRecord& rec, Rng& rng, const std::vector<std::size_t>& m,
             const Point& C_e1, unsigned threads, std::vector<Point>& places, std::vector<Rational>& delta)
      : c_(c), rec_(rec), rng_(rng), m_(m), C_e1_(C_e1), threads_(threads), places_left_(rec.places_left()),
        axis_places_(places), places_(places), delta_(delta) {}

  std::optional<Rational> operator()(const Integer& range) {
    rec_.reading = dyadic_direction(rng_, static_cast<int>(C_e1_.size()), static_cast<int>(boost::multiprecision::msb(range)));
    places_ = axis_places_;
    rec_.split.reset();
    const auto t = readings_of_draw();  // t[i] = r . x_i
    if (!t) return std::nullopt;
    return isolation_of_leaders(*t);
  }

 private:
  // The draw's reading (moved to read a gap, or to keep the places left) and every token's reading.
  std::optional<std::vector<Rational>> readings_of_draw() {
    std::vector<Rational> t;
    if (rec_.axis_places() && draw_++ % 2 == 0) {
      rec_.reading = gap_reading(rec_.reading);
      t = c_.readings(rec_.reading, threads_);
      std::vector<Rational> shrunk(t.size());
      const Rational base = dot(rec_.reading, C_e1_);
      for_each_index(t.size(), threads_, [&](std::size_t i) { shrunk[i] = rec_.eps * t[i] + base; });
      rec_.split = split_reading(std::move(shrunk), abs(rec_.reading[1]));
      if (!rec_.split) return std::nullopt;
      places_ = places_reading(axis_places_, rec_.reading, *rec_.split);
      for (std::size_t k = 0; k < places_.size(); ++k)  // lem:gap-places (1): keeps Lemma P's margin
        if (!(abs(places_[k][1] - axis_places_[k][1]) < 2)) return std::nullopt;
    } else if (places_left_) {
      auto left = reading_with_places_left(rec_.reading, places_,
                                           [&](const Point& r) { return c_.readings(r, threads_); }, rec_.eps, C_e1_,
                                           threads_, &t);  // lem:places-left
      if (!left) return std::nullopt;
      rec_.reading = std::move(*left);
    } else {
      t = c_.readings(rec_.reading, threads_);
    }
    return t;
  }

  // The leaders of readings t, their hats' half-widths (lem:hat-margin) and the draw's score.
  std::optional<Rational> isolation_of_leaders(const std::vector<Rational>& t) {
    const auto [tmin, tmax] = std::minmax_element(t.begin(), t.end());
    const Rational span = *tmax - *tmin;
    const auto gap = reading_gaps(t, span > 0 ? span : Rational(1));
    rec_.leaders = most_isolated_leaders(c_.layout(), gap, m_);
    std::vector<std::size_t> leader_tokens;
    for (const auto& l : rec_.leaders) leader_tokens.insert(leader_tokens.end(), l.begin(), l.end());
    const Rational base = dot(rec_.reading, C_e1_);
    Rational lo = base + rec_.eps * *tmin, hi = base + rec_.eps * *tmax;
    std::vector<Rational> leader_t;
    for (std::size_t q : leader_tokens) leader_t.push_back(t[q]);
    const auto order = decreasing_reading_order(leader_t);  // lem:hat-order
    std::set<Rational> taken, all_places;
    if (places_left_)
      for (const auto& p : places_) all_places.insert(dot(rec_.reading, p));
    for (std::size_t s = 0; s < order.size(); ++s) {
      const std::size_t k = order[s], q = leader_tokens[k];
      Rational g = gap[q];
      if (s > 0)  // reads shrunk coordinates eps x + C e1
        g = std::min(g * rec_.eps,
                     distance_to_set(places_left_ ? all_places : taken, rec_.eps * t[q] + base, g * rec_.eps));
      if (g == 0) return std::nullopt;
      delta_[k] = hat_half_width_with_margin(g);  // lem:hat-margin
      const Rational placed_reading = dot(rec_.reading, places_[k]);
      taken.insert(placed_reading);
      lo = std::min(lo, placed_reading), hi = std::max(hi, placed_reading);
    }
    Rational worst = delta_[order[0]] / (span > 0 ? span : Rational(1));
    for (std::size_t s = 1; s < order.size(); ++s) worst = std::min(worst, delta_[order[s]] / (hi - lo));
    return worst;
  }

  const ShiftedTokens& c_;
  PlacementRecord& rec_;
  Rng& rng_;
  const std::vector<std::size_t>& m_;
  const Point& C_e1_;
  unsigned threads_;
  bool places_left_;
  const std::vector<Point> axis_places_;
  std::vector<Point>& places_;
  std::vector<Rational>& delta_;
  int draw_ = 0;
};

// The reading and leaders of the best conditioned of a few draws (LeaderDraw), logged in
// out.record.choices; places and delta as that draw left them.
void choose_reading_and_leaders(const ShiftedTokens& c, Rng& rng, const std::vector<std::size_t>& m, const Point& C_e1,
                                unsigned threads, std::vector<Point>& places, std::vector<Rational>& delta,
                                Construction& out) {
  auto& rec = out.record.placement;
  struct Candidate {
    Point reading;
    std::vector<std::vector<std::size_t>> leaders;
    std::vector<Rational> delta;
    std::vector<Point> places;
    std::optional<Rational> split;
  };
  std::vector<Candidate> kept;
  const int candidates = c.size() > 4000 ? 2 : 6;
  LeaderDraw draw(c, rec, rng, m, C_e1, threads, places, delta);
  choose_best_conditioned("placement reading direction and leaders", "relative isolation", candidates,
                          Integer(1) << 20, [&](const Integer& range) { return draw(range); },
                          [&](int) { kept.push_back({rec.reading, rec.leaders, delta, places, rec.split}); },
                          [&](int i) {
                            auto& k = kept[static_cast<std::size_t>(i)];
                            rec.reading = std::move(k.reading);
                            rec.leaders = std::move(k.leaders);
                            delta = std::move(k.delta);
                            places = std::move(k.places);
                            rec.split = std::move(k.split);
                          },
                          out.record.choices);
}

// The hats in the order of lem:hat-order (or lem:gap-places' two-sided order when the places
// read a split), each leader's index into `places` and `delta`.
GapOrder placement_hat_order(const std::vector<Rational>& leader_t, const Point& C_e1, Construction& out) {
  const auto& rec = out.record.placement;
  GapOrder hat_order{decreasing_reading_order(leader_t), std::vector<bool>(leader_t.size(), false)};  // lem:hat-order
  if (!rec.split) return hat_order;
  const Rational base = dot(rec.reading, C_e1);  // lem:gap-places
  std::vector<Rational> shrunk;
  for (const auto& t : leader_t) shrunk.push_back(rec.eps * t + base);
  hat_order = gap_hat_order(hat_order.order, shrunk, *rec.split);
  const auto below = static_cast<std::size_t>(std::count(hat_order.mirrored.begin(), hat_order.mirrored.end(), true));
  out.record.choices.push_back({"split reading " + rec.split->str() + " (lem:gap-places): every place reads it; " +
                                std::to_string(below) + " of " + std::to_string(leader_t.size()) +
                                " leaders placed by mirrored hats",
                                1, Integer(0)});
  return hat_order;
}

// Hats are built, and their exact norms summed, kPlacementChunk at a time: a fixed size, so
// where a budgeted placement stops does not depend on threads or processes.
constexpr std::size_t kPlacementChunk = 256;

// One hat per leader, moving it to its place; the first also shrinks every token (lem:shrink).
// The hats s = 1 .. plateaus after it carry a plateau (lem:plateau-hat). With `budget`, stops
// after the first chunk of hats whose exact ||theta||^2 (summed from the first hat) reaches
// *budget and returns that sum, appending no block; otherwise appends every hat, nullopt.
}  // namespace

std::optional<Rational> add_placement_hats(const ShiftedTokens& c, const SelfAttention<Rational>& first_sa,
                                           const PlacementPlan& plan, std::size_t plateaus, const Execution& exec,
                                           const std::optional<Rational>& budget, Construction& out) {
  const auto& rec = out.record.placement;
  const Point& C_e1 = plan.C_e1;
  const std::vector<Point>& places = plan.places;
  const std::vector<Rational>& delta = plan.delta;
  std::vector<std::size_t> leader_tokens;
  for (const auto& l : rec.leaders) leader_tokens.insert(leader_tokens.end(), l.begin(), l.end());
  std::vector<Point> leader_x;
  std::vector<Rational> leader_t;
  for (std::size_t q : leader_tokens) {
    leader_x.push_back(c.token(q));
    leader_t.push_back(dot(rec.reading, leader_x.back()));
  }
  const GapOrder hat_order = placement_hat_order(leader_t, C_e1, out);
  const auto& order = hat_order.order;
  const auto hat = [&](std::size_t s) {
    const std::size_t k = order[s];
    const Point& q = leader_x[k];
    Block<Rational> block{SelfAttention<Rational>::identity(), {}, Phase::placement};
    if (s == 0) {
      block.sa = first_sa;
      const Point D = places[k] - (q * rec.eps + C_e1);
      block.ff = shrink_hat_layer(rec.reading, dot(rec.reading, q), delta[k], D, rec.eps, C_e1);
    } else if (hat_order.mirrored[k]) {  // lem:gap-places: active left of its window
      const Point now = q * rec.eps + C_e1;
      block.ff = move_layer({Point(-rec.reading), -dot(rec.reading, now), delta[k], places[k] - now}, s <= plateaus);
    } else {
      const Point now = q * rec.eps + C_e1;
      block.ff = move_layer({rec.reading, dot(rec.reading, now), delta[k], places[k] - now}, s <= plateaus);
    }
    return block;
  };
  std::vector<std::optional<Block<Rational>>> hats(order.size());  // kept in this order
  Rational norm = 0;
  for (std::size_t from = 0; from < order.size(); from += kPlacementChunk) {
    const std::size_t to = std::min(order.size(), from + kPlacementChunk);
    // Each part builds its share of the chunk; only the exact norms are exchanged.
    const std::vector<Rational> norms = shard_map_rational(to - from, exec, [&](std::size_t i) {
      hats[from + i] = hat(from + i);
      return Rational(hats[from + i]->ff.stored_norm_sq() + hats[from + i]->sa.stored_norm_sq());
    });
    norm += exact_sum(norms);
    if (budget && norm >= *budget) return norm;
  }
  for_each_index(order.size(), exec.threads, [&](std::size_t s) {  // hats another process built
    if (!hats[s]) hats[s] = hat(s);
  });
  for (auto& block : hats) out.model.blocks.push_back(std::move(*block));
  return std::nullopt;
}

PlacementPlan plan_placement(const Dataset& data, const ShiftedTokens& c, Rng& rng, Construction& out,
                             unsigned threads) {
  auto& rec = out.record.placement;
  rec.C = 4;
  rec.r0 = 1;
  rec.eps = shrink_factor(c.max_norm_sq(threads), rec.r0);
  PlacementPlan plan{on_plane(data.dimension, rec.C, 0), {}, {}};
  // Places grouped by target (lem:grouped-places), in a bounded range (lem:bounded-places).
  const std::vector<std::size_t> m = record_grouped_places(data, c, out);
  for (const auto& p : rec.placed) plan.places.insert(plan.places.end(), p.begin(), p.end());
  plan.delta.resize(plan.places.size());
  choose_reading_and_leaders(c, rng, m, plan.C_e1, threads, plan.places, plan.delta, out);
  if (rec.split) {  // the places as moved (lem:gap-places), in the order they were listed
    auto p = plan.places.begin();
    for (auto& placed : rec.placed)
      for (auto& q : placed) q = *p++;
  }
  return plan;
}

}  // namespace seqi
