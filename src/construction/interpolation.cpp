// Phases C and I (lem:collapse, lem:interpolation): one attention layer sends every token to
// (a . P_att) v on the line R v; one flat hat per cluster then sends it to its target.
#include <algorithm>
#include <optional>

#include "seqi/construction/construction.hpp"
#include "seqi/construction/balance_units.hpp"
#include "seqi/construction/conditioning_choice.hpp"
#include "seqi/construction/hats.hpp"
#include "seqi/numbers/dyadic.hpp"

namespace seqi {
namespace {

// Order in which every cluster k comes after prerequisite[k] (if any), otherwise following
// `starts` (a permutation of the clusters); nullopt on a cycle.
std::optional<std::vector<std::size_t>> prerequisite_order(
    const std::vector<std::optional<std::size_t>>& prerequisite, const std::vector<std::size_t>& starts) {
  const std::size_t n = prerequisite.size();
  std::vector<int> state(n, 0);  // 0 new, 1 on the current chain, 2 emitted
  std::vector<std::size_t> order;
  for (std::size_t start : starts) {
    std::vector<std::size_t> chain;
    for (std::size_t k = start; state[k] == 0;) {
      state[k] = 1;
      chain.push_back(k);
      if (!prerequisite[k]) break;
      k = *prerequisite[k];
    }
    if (chain.empty()) continue;
    // The walk stopped at an emitted cluster (fine) or at one on this chain (a cycle).
    const auto& last = prerequisite[chain.back()];
    if (last && state[*last] == 1) return std::nullopt;
    for (auto it = chain.rbegin(); it != chain.rend(); ++it) {
      state[*it] = 2;
      order.push_back(*it);
    }
  }
  return order;
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

  // Collapse direction a in span(e1, e2) (places lie there): a = e1 first, then a_2 a random
  // dyadic in [-1, 1]; the largest smallest relative gap g / max |z| wins (lem:relative-margins).
  int drawn = 0;
  std::vector<Point> kept_a;
  choose_best_conditioned("collapse direction a", "relative collapse gap", 4, Integer(1) << 8,
                          [&](const Integer& range) -> std::optional<Rational> {
    rec.a = Point::Zero(d);
    rec.a[0] = 1;
    if (drawn++ > 0) rec.a[1] = Rational(rng.integer_in(range)) / Rational(range);
    std::vector<Rational> z;
    for (const auto& p : places) z.push_back(dot(rec.a, p));
    const auto rel = smallest_relative_gap(z);
    if (K > 1 && (!rel || *rel == 0)) return std::nullopt;
    return rel ? *rel : Rational(1);
  }, [&](int) { kept_a.push_back(rec.a); }, [&](int i) { rec.a = kept_a[static_cast<std::size_t>(i)]; },
     out.record.choices);
  std::vector<std::pair<Rational, std::size_t>> sorted;
  rec.z.clear();
  Rational zmax = 0;
  for (std::size_t k = 0; k < K; ++k) {
    rec.z.push_back(dot(rec.a, places[k]));
    sorted.emplace_back(rec.z.back(), k);
    zmax = std::max(zmax, Rational(abs(rec.z.back())));
  }
  std::sort(sorted.begin(), sorted.end());
  rec.gap = K > 1 ? sorted[1].first - sorted[0].first : Rational(1);
  for (std::size_t k = 1; k < K; ++k) rec.gap = std::min(rec.gap, sorted[k].first - sorted[k - 1].first);
  rec.df = dyadic_floor_at_most_one(rec.gap / 8);

  // Flat-hat reading r: small dyadic entries, scaled by a power of two so that the targets'
  // readings are no larger than max |z| (lem:flat-scale); v = r / |r|^2.
  choose_generic("flat-hat reading r", Integer(1) << 20, [&](const Integer& range) {
    rec.reading = dyadic_direction(rng, d, static_cast<int>(boost::multiprecision::msb(range)));
    Rational ty = 0;
    for (const auto& y : targets) ty = std::max(ty, Rational(abs(dot(rec.reading, y))));
    if (ty > 0 && zmax > 0) rec.reading *= pow2(floor_log2(zmax / ty));
    rec.v = rec.reading / norm_sq(rec.reading);
    // Target k must be placed after the cluster whose window (z - 2df, z + 2df) holds r.y_k.
    std::vector<std::optional<std::size_t>> prerequisite(K);
    for (std::size_t k = 0; k < K; ++k) {
      const Rational t = dot(rec.reading, targets[k]);
      auto it = std::upper_bound(sorted.begin(), sorted.end(), std::pair{t - 2 * rec.df, K});
      if (it != sorted.end() && it->first < t + 2 * rec.df && it->second != k) prerequisite[k] = it->second;
    }
    std::vector<std::size_t> by_decreasing_z;  // waiting tokens stay left of every earlier hat (lem:hat-order)
    for (auto it = sorted.rbegin(); it != sorted.rend(); ++it) by_decreasing_z.push_back(it->second);
    auto order = prerequisite_order(prerequisite, by_decreasing_z);
    if (order) rec.order = std::move(*order);
    return order.has_value();
  }, out.record.choices);

  out.record.collapse_block = out.model.blocks.size();
  for (std::size_t i = 0; i < K; ++i) {
    const std::size_t k = rec.order[i];
    Block<Rational> block{SelfAttention<Rational>::identity(),
                          flat_hat_layer(rec.reading, rec.v, rec.z[k], rec.df, targets[k]),
                          Phase::interpolation};
    if (i == 0) block.sa = {Rational(0), StructuredMatrix<Rational>::scaled_identity(1),
                            StructuredMatrix<Rational>::rank_one(rec.v, rec.a)};
    out.model.blocks.push_back(std::move(block));
  }
}

Construction build_interpolating_transformer(const Dataset& data, std::uint64_t seed) {
  Construction out;
  out.model.dimension = data.dimension;
  out.record.seed = seed;
  Rng rng(seed);
  TokenState config = inputs_of(data);
  const auto first_sa = build_separation(config, rng, out);
  build_placement(data, config, first_sa, rng, out);
  build_collapse_and_interpolation(data, rng, out);
  balance_hidden_units(out.model);  // same function, smaller weights (lem:relu-rescaling)
  return out;
}

}  // namespace seqi
