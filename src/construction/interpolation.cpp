// Phases C and I (lem:collapse, lem:interpolation): one attention layer sends every token to
// (a . P_att) v on the line R v; one flat hat per run of clusters with one target then sends
// the run to it (lem:run-interpolation).
#include <algorithm>
#include <cmath>
#include <optional>

#include "seqi/construction/construction.hpp"
#include "seqi/construction/conditioning_choice.hpp"
#include "seqi/construction/flat_scale.hpp"
#include "seqi/construction/hats.hpp"
#include "seqi/numbers/dyadic.hpp"

namespace seqi {
namespace {

constexpr int kFlatReadingDraws = 8;  // flat-hat readings compared when the first misses 2^-30

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
  std::vector<Point> places, targets;
  for (std::size_t j = 0; j < data.pairs.size(); ++j)
    for (std::size_t l = 0; l < data.pairs[j].output.size(); ++l) {
      places.push_back(out.record.placement.placed[j][l]);
      targets.push_back(data.pairs[j].output[l]);
    }
  const std::size_t K = places.size();

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
  std::vector<std::pair<Rational, std::size_t>> sorted;
  rec.z.clear();
  for (std::size_t k = 0; k < K; ++k) {
    rec.z.push_back(dot(rec.a, places[k]));
    sorted.emplace_back(rec.z.back(), k);
  }
  std::sort(sorted.begin(), sorted.end());
  rec.gap = K > 1 ? sorted[1].first - sorted[0].first : Rational(1);
  for (std::size_t k = 1; k < K; ++k) rec.gap = std::min(rec.gap, sorted[k].first - sorted[k - 1].first);
  rec.df = dyadic_floor_at_most_one(rec.gap / 8);
  if (K > 1 && rec.gap == 0) throw ConstructionError("collapse values z_jl are not pairwise distinct");
  rec.runs = maximal_target_runs(sorted, targets);
  const std::size_t runs = rec.runs.size();

  // Flat-hat reading r: small dyadic entries scaled by a power of two (lem:flat-scale, steered
  // by rem:flat-range's float64 estimate); v = r / |r|^2.
  const FlatHatTask task = flat_hat_task(data, rec);
  std::optional<FlatScale> scale;
  int bits = 0;
  choose_generic("flat-hat reading r", Integer(1) << 20, [&](const Integer& range) {
    bits = static_cast<int>(boost::multiprecision::msb(range));
    rec.reading = dyadic_direction(rng, d, bits);
    scale = choose_flat_scale(task, rec.reading);
    return scale.has_value();
  }, out.record.choices);
  // A first draw whose estimate misses 2^-30 is compared with a few more (the best estimate
  // wins); later draws change nothing else, as r is the last seeded choice.
  int draws = 1;
  for (; draws < kFlatReadingDraws && scale->log2_error > kFlatScaleLog2Goal; ++draws) {
    Point r_hat = dyadic_direction(rng, d, bits);
    auto other = choose_flat_scale(task, r_hat);
    if (other && other->log2_error < scale->log2_error) scale = std::move(other), rec.reading = std::move(r_hat);
  }
  rec.reading *= pow2(scale->k);
  rec.v = rec.reading / norm_sq(rec.reading);
  rec.order = std::move(scale->order);
  rec.mirrored = std::move(scale->mirrored);
  if (scale->k != scale->default_k || !rec.mirrored.empty()) {
    const auto left = std::count(rec.mirrored.begin(), rec.mirrored.end(), true);
    out.record.choices.back().what += " (best of " + std::to_string(draws) + " drawn directions; scaled by 2^" + std::to_string(scale->k - scale->default_k) +
                                      " beyond lem:flat-scale, " + std::to_string(left) +
                                      " hats mirrored (lem:mirrored-flat): estimated float64 error 2^" +
                                      std::to_string(static_cast<long>(std::ceil(scale->log2_error))) +
                                      ", rem:flat-range)";
  }

  out.record.collapse_block = out.model.blocks.size();
  for (std::size_t i = 0; i < runs; ++i) {
    const auto& run = rec.runs[rec.order[i]];
    // A mirrored hat is the flat hat of (-r, -v, -z): the same window, active on its left.
    const bool left = !rec.mirrored.empty() && rec.mirrored[rec.order[i]];
    Block<Rational> block{SelfAttention<Rational>::identity(),
                          left ? flat_run_layer(-rec.reading, -rec.v, -rec.z[run.back()], -rec.z[run.front()], rec.df,
                                                targets[run.front()])
                               : flat_run_layer(rec.reading, rec.v, rec.z[run.front()], rec.z[run.back()], rec.df,
                                                targets[run.front()]),
                          Phase::interpolation};
    if (i == 0) block.sa = {Rational(0), StructuredMatrix<Rational>::scaled_identity(1),
                            StructuredMatrix<Rational>::rank_one(rec.v, rec.a)};
    out.model.blocks.push_back(std::move(block));
  }
}

Construction build_interpolating_transformer(const Dataset& data, std::uint64_t seed, unsigned threads) {
  Construction out;
  out.model.dimension = data.dimension;
  out.record.seed = seed;
  Rng rng(seed);
  TokenState config = inputs_of(data, threads);
  const Separation sep = build_separation(config, rng, out, threads);
  const ShiftedTokens tokens(data, config, out.record.separation.lifts > 0, sep.v, sep.s);
  build_placement(data, tokens, sep.shift, rng, out, threads);
  build_collapse_and_interpolation(data, rng, out);  // every unit is built balanced (lem:relu-rescaling)
  return out;
}

}  // namespace seqi
