// Phases C and I (lem:collapse, lem:interpolation): one attention layer sends every token to
// (a . P_att) v on the line R v; one flat hat per run of clusters with one target then sends
// the run to it (lem:run-interpolation).
#include <algorithm>
#include <cmath>
#include <optional>

#include "seqi/construction/construction.hpp"
#include "seqi/construction/conditioning_choice.hpp"
#include "seqi/construction/flat_norm.hpp"
#include "seqi/construction/flat_scale.hpp"
#include "seqi/construction/grouped_places.hpp"
#include "seqi/construction/hats.hpp"
#include "seqi/numbers/dyadic.hpp"

namespace seqi {
namespace {

constexpr int kFlatReadingDraws = 8;  // flat-hat readings compared when the first misses 2^-30
constexpr int kFlatNormDraws = 4;     // flat-hat readings compared by their norm estimate at least,
constexpr std::size_t kFlatNormRuns = 1000;  // up to this many runs (each draw's scale search is O(runs))
constexpr long kFlatNormRadius = 12;  // scales 2^k tried around the float estimate's choice

// A drawn flat-hat reading with its scale and the norm estimate of its hats.
struct FlatCandidate {
  Point r_hat;
  FlatScale scale;
  double norm = 0;
  // Within the float estimate's goal the lighter, else the better estimate.
  bool better_than(const FlatCandidate& o) const {
    const bool ok = scale.log2_error <= kFlatScaleLog2Goal, o_ok = o.scale.log2_error <= kFlatScaleLog2Goal;
    if (ok != o_ok) return ok;
    return ok ? norm < o.norm : scale.log2_error < o.scale.log2_error;
  }
};

// Maximal runs of the z-sorted clusters whose targets are equal points (lem:run-interpolation).
std::vector<std::vector<std::size_t>> maximal_target_runs(const std::vector<std::pair<Rational, std::size_t>>& sorted,
                                                          const std::vector<Point>& targets) {
  std::vector<std::vector<std::size_t>> runs;
  for (std::size_t i = 0; i < sorted.size(); ++i) {
    const std::size_t k = sorted[i].second;
    if (i == 0 || !equal_points(targets[k], targets[runs.back().front()])) runs.emplace_back();
    runs.back().push_back(k);
  }
  return runs;
}

// Per run: 1/4 of the distance from its values to the nearest value of another run (the one
// neighbour's distance at either end; df for a lone run), at most 1, cut to its leading three
// bits, and at least df (a power of two). Then no other value lies within 3 df_u of the run, and
// neighbouring windows do not overlap. The hats' weights hold 1 / df_u: as a dyadic step its odd
// part is 1, 3, 5 or 7, so the exact ||theta||^2 of thousands of runs keeps a small denominator.
std::vector<Rational> run_half_widths(const InterpolationRecord& rec) {
  const std::size_t runs = rec.runs.size();
  std::vector<Rational> room(runs);
  for (std::size_t u = 0; u < runs; ++u) {
    std::optional<Rational> nearest;
    if (u > 0) nearest = rec.z[rec.runs[u].front()] - rec.z[rec.runs[u - 1].back()];
    if (u + 1 < runs) {
      const Rational right = rec.z[rec.runs[u + 1].front()] - rec.z[rec.runs[u].back()];
      nearest = nearest ? std::min(*nearest, right) : right;
    }
    room[u] = nearest ? std::max(rec.df, leading_bits(std::min(Rational(1), Rational(*nearest / 4)), 3)) : rec.df;
  }
  return room;
}

// a = e1 first, then a_2 a random dyadic in [-1, 1]; the largest smallest relative gap
// g / max |z| wins (lem:relative-margins).
Point best_conditioned_collapse_direction(const std::vector<Point>& places, int d, Rng& rng,
                                          std::vector<ChoiceLog>& log) {
  Point a;
  int drawn = 0;
  std::vector<Point> kept_a;
  choose_best_conditioned("collapse direction a", "relative collapse gap", 4, Integer(1) << 8,
                          [&](const Integer& range) -> std::optional<Rational> {
    a = Point::Zero(d);
    a[0] = 1;
    if (drawn++ > 0) a[1] = Rational(rng.integer_in(range)) / Rational(range);
    std::vector<Rational> z;
    for (const auto& p : places) z.push_back(dot(a, p));
    const auto rel = smallest_relative_gap(z);
    if (places.size() > 1 && (!rel || *rel == 0)) return std::nullopt;
    return rel ? *rel : Rational(1);
  }, [&](int) { kept_a.push_back(a); }, [&](int i) { a = kept_a[static_cast<std::size_t>(i)]; }, log);
  return a;
}

}  // namespace

void build_collapse_and_interpolation(const Dataset& data, Rng& rng, Construction& out) {
  auto& rec = out.record.interpolation;
  const int d = data.dimension;
  std::vector<Point> places;
  for (const auto& placed : out.record.placement.placed) places.insert(places.end(), placed.begin(), placed.end());

  // Collapse direction a in span(e1, e2) (places lie there): fixed by grouped circle places
  // (lem:grouped-places), otherwise the best conditioned of a few.
  if (const auto& fixed = out.record.placement.collapse) {
    rec.a = Point::Zero(d);
    rec.a[0] = fixed->first;
    rec.a[1] = fixed->second;
    out.record.choices.push_back({"collapse direction a = (" + to_string(fixed->first) + ") e1 + (" +
                                      to_string(fixed->second) + ") e2 (fixed by the grouped places)",
                                  1, Integer(0)});
  } else if (out.record.placement.split) {
    // lem:gap-places: the places' e2 parts only put them on the split reading; a = e1 reads
    // z_j = R_j as lem:grouped-places (1) intends (and keeps the collapsed tokens' numbers small).
    rec.a = Point::Zero(d);
    rec.a[0] = 1;
    out.record.choices.push_back({"collapse direction a = e1 (the places' split reading, lem:gap-places)", 1, Integer(0)});
  } else {
    rec.a = best_conditioned_collapse_direction(places, d, rng, out.record.choices);
  }
  rec.z.clear();
  for (const auto& p : places) rec.z.push_back(dot(rec.a, p));
  build_flat_hats(data, rng, out, Rational(1), false);
}

namespace {

// The coordinates on which every written target has the same value, ascending.
std::vector<int> coordinates_without_spread(const std::vector<Point>& targets, int d) {
  std::vector<int> out;
  for (int c = 0; c < d && !targets.empty(); ++c)
    if (std::all_of(targets.begin(), targets.end(), [&](const Point& y) { return y[c] == targets.front()[c]; }))
      out.push_back(c);
  return out;
}

// lem:float-dot: a flat hat's pre-activation sums one product per nonzero entry of r, so a
// sparse reading rounds less (by about (d + 1) / (s + 1) for s entries). Draw `attempt` (from 0)
// reads 2^attempt of the coordinates where the targets do not vary (so every placed target reads
// the same value), while that is under half the dimension; then every coordinate (empty: dense).
// Only those coordinates: a placed target's float error is bounded per token, not per coordinate,
// and a reading blind to a target's large coordinates would leave that error near the windows.
std::vector<int> flat_reading_support(const std::vector<int>& flat, int d, int attempt) {
  const std::size_t s = attempt < 20 ? std::size_t(1) << attempt : flat.size() + 1;
  if (s > flat.size() || 2 * s >= static_cast<std::size_t>(d)) return {};
  return {flat.begin(), flat.begin() + static_cast<std::ptrdiff_t>(s)};
}

}  // namespace

Rational smallest_sorted_gap(const std::vector<std::pair<Rational, std::size_t>>& sorted) {
  Rational gap = sorted.size() > 1 ? sorted[1].first - sorted[0].first : Rational(1);
  for (std::size_t k = 2; k < sorted.size(); ++k) gap = std::min(gap, sorted[k].first - sorted[k - 1].first);
  return gap;
}

void build_flat_hats(const Dataset& data, Rng& rng, Construction& out, const Rational& collapse_alpha,
                     bool per_run_windows) {
  auto& rec = out.record.interpolation;
  const int d = data.dimension;
  std::vector<Point> targets;  // the values the flat hats write
  for (const auto& pair : data.pairs)
    for (const Point y : pair.output) targets.push_back(rec.written_value(y));
  const std::size_t K = rec.z.size();
  std::vector<std::pair<Rational, std::size_t>> sorted;
  for (std::size_t k = 0; k < K; ++k) sorted.emplace_back(rec.z[k], k);
  std::sort(sorted.begin(), sorted.end());
  rec.gap = smallest_sorted_gap(sorted);
  rec.df = dyadic_floor_at_most_one(rec.gap / 8);
  if (K > 1 && rec.gap == 0) throw ConstructionError("collapse values z_jl are not pairwise distinct");
  rec.runs = maximal_target_runs(sorted, targets);
  const std::size_t runs = rec.runs.size();
  rec.run_df.clear();
  if (per_run_windows) rec.run_df = run_half_widths(rec);

  // Flat-hat reading r: small dyadic entries scaled by a power of two (lem:flat-scale, steered
  // by rem:flat-range's float64 estimate), on as few coordinates as give a run order
  // (flat_reading_support); v = r / |r|^2.
  const FlatHatTask task = flat_hat_task(data, rec);
  const std::vector<int> flat = coordinates_without_spread(targets, d);
  FlatCandidate best;
  int bits = 0, attempt = 0;
  std::vector<int> support;
  const auto draw = [&] {
    return support.empty() ? dyadic_direction(rng, d, bits) : sparse_dyadic_direction(rng, d, bits, support);
  };
  choose_generic("flat-hat reading r", Integer(1) << 20, [&](const Integer& range) {
    bits = static_cast<int>(boost::multiprecision::msb(range));
    support = flat_reading_support(flat, d, attempt++);
    best.r_hat = draw();
    auto scale = choose_flat_scale(task, best.r_hat);
    if (scale) best.scale = lightest_nearby_scale(task, best.r_hat, *scale, kFlatNormRadius, best.norm);
    return scale.has_value();
  }, out.record.choices);
  // A few more draws (more while the float estimate misses 2^-30): within the estimate's goal the
  // lightest wins, otherwise the best estimate; later draws change nothing else, as r is the last
  // seeded choice.
  int draws = 1;
  const int norm_draws = runs <= kFlatNormRuns ? kFlatNormDraws : 1;
  for (; draws < kFlatReadingDraws && (draws < norm_draws || best.scale.log2_error > kFlatScaleLog2Goal); ++draws) {
    FlatCandidate other;
    other.r_hat = draw();
    auto scale = choose_flat_scale(task, other.r_hat);
    if (!scale) continue;
    other.scale = lightest_nearby_scale(task, other.r_hat, *scale, kFlatNormRadius, other.norm);
    if (other.better_than(best)) best = std::move(other);
  }
  rec.reading = std::move(best.r_hat);
  std::optional<FlatScale> scale = std::move(best.scale);
  rec.reading *= pow2(scale->k);
  rec.v = rec.reading / norm_sq(rec.reading);
  rec.order = std::move(scale->order);
  rec.mirrored = std::move(scale->mirrored);
  if (!support.empty())
    out.record.choices.back().what += " on the " + std::to_string(support.size()) + " of " + std::to_string(d) +
                                      " coordinates where the targets do not vary (rem:flat-range)";
  if (scale->k != scale->default_k || !rec.mirrored.empty()) {
    const auto left = std::count(rec.mirrored.begin(), rec.mirrored.end(), true);
    out.record.choices.back().what += " (best of " + std::to_string(draws) + " drawn directions; scaled by 2^" + std::to_string(scale->k - scale->default_k) +
                                      " beyond lem:flat-scale, " + std::to_string(left) +
                                      " hats mirrored (lem:mirrored-flat): estimated float64 error 2^" +
                                      std::to_string(static_cast<long>(std::ceil(scale->log2_error))) +
                                      ", rem:flat-range)";
  }

  out.record.collapse_block = out.model.blocks.size();
  SharedFlatFactors factors(rec.reading, rec.v);
  for (std::size_t i = 0; i < runs; ++i) {
    const auto& run = rec.runs[rec.order[i]];
    // A mirrored hat is the flat hat of (-r, -v, -z): the same window, active on its left.
    const bool left = !rec.mirrored.empty() && rec.mirrored[rec.order[i]];
    Block<Rational> block{SelfAttention<Rational>::identity(),
                          left ? flat_run_layer(factors.of(targets[run.front()], true), -rec.z[run.back()],
                                                -rec.z[run.front()], rec.df_of(rec.order[i]))
                               : flat_run_layer(factors.of(targets[run.front()], false), rec.z[run.front()],
                                                rec.z[run.back()], rec.df_of(rec.order[i])),
                          Phase::interpolation};
    if (i == 0) block.sa = {Rational(0), StructuredMatrix<Rational>::scaled_identity(collapse_alpha),
                            StructuredMatrix<Rational>::rank_one(rec.v, rec.a)};
    out.model.blocks.push_back(std::move(block));
  }
  if (rec.has_offset())
    out.model.blocks.push_back({SelfAttention<Rational>::identity(), constant_layer(rec.offset), Phase::interpolation});
}

}  // namespace seqi
