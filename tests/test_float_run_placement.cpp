#include <boost/test/unit_test.hpp>

#include <boost/multiprecision/mpfr.hpp>
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <functional>
#include <iostream>
#include <optional>
#include <random>
#include <string>

#include "seqi/certification/run_report.hpp"
#include "seqi/replay/float_replay.hpp"
#include "seqi/float_statement/float_run.hpp"
#include "seqi/construction/construction.hpp"
#include "seqi/construction/hats.hpp"
#include "seqi/io/dataset_json.hpp"
#include "seqi/io/random_dataset.hpp"
#include "float_run_support.hpp"

BOOST_AUTO_TEST_SUITE(test_float_run_placement)

using namespace seqi;
using namespace seqi_test::float_run;

// A placement-like chain (lem:float-run-sparse) on a dataset along the reading direction r: one
// hat (eta = 1, three units on r) per isolated first token of a sequence, in decreasing reading
// order, moving it to reading min - 1 (left of every reading).
struct PlacementChain {
  Dataset data;
  Transformer<Rational> model;
  std::size_t tokens = 0;
};

// N sequences of n in [n_lo, n_hi] random tokens in R^d, d in [2, 4].
Dataset random_chain_data(Gen& g, long N, long n_lo, long n_hi) {
  Dataset data;
  const int d = static_cast<int>(g.range(2, 4));
  data.dimension = d;
  for (long j = 0; j < N; ++j) {
    SequencePair p;
    for (long i = 0, n = g.range(n_lo, n_hi); i < n; ++i) p.input.push_back(g.point(d) * Rational(g.range(1, 50)));
    p.output.push_back(p.input[0]);
    data.pairs.push_back(p);
  }
  return data;
}

PlacementChain placement_chain(Dataset dataset, const Point& r) {
  PlacementChain chain;
  chain.data = std::move(dataset);
  const Dataset& data = chain.data;
  const int d = data.dimension;
  std::vector<Rational> reading;
  for (const auto& p : data.pairs)
    for (const auto& x : p.input) reading.push_back(dot(r, x));
  chain.tokens = reading.size();
  std::vector<Rational> sorted = reading;
  std::sort(sorted.begin(), sorted.end());
  // distance from reading t to the nearest other reading (0 when another token reads t)
  auto isolation = [&](const Rational& t) {
    const auto it = std::lower_bound(sorted.begin(), sorted.end(), t);
    Rational gap = -1;
    if (it + 1 != sorted.end()) gap = *(it + 1) - t;
    if (it != sorted.begin() && (gap < 0 || t - *(it - 1) < gap)) gap = t - *(it - 1);
    return gap;
  };
  const Rational t_min = sorted.front();
  std::vector<Rational> leaders;  // readings of the isolated first tokens
  for (std::size_t j = 0, at = 0; j < data.pairs.size(); at += data.pairs[j].input.size(), ++j)
    if (isolation(reading[at]) > 0) leaders.push_back(reading[at]);
  std::sort(leaders.begin(), leaders.end(), std::greater<>());
  chain.model.dimension = d;
  for (const Rational& t : leaders) {
    const Rational delta = isolation(t) / 4;
    const Point D = -r * ((t - t_min + 1) / dot(r, r));  // to reading t_min - 1
    FeedForward<Rational> hat;
    hat.eta = 1;
    hat.U = Mat<Rational>(3, d);
    hat.W = Mat<Rational>(d, 3);
    hat.b = Point(3);
    for (int k = 0; k < 3; ++k) {
      hat.U.edit().row(k) = r.transpose();
      hat.b[k] = -(t + delta * Rational(k - 1));
      hat.W.edit().col(k) = D * (k == 1 ? Rational(-2) : Rational(1)) / delta;
    }
    chain.model.blocks.push_back({SelfAttention<Rational>::identity(), hat, Phase::user});
  }
  return chain;
}

// Placement-like chains on random data: the hats' far right side cancels only exactly, so the
// tokens there pick up rounding that the bound covers by charges without visiting them. Every float run (three summation orders) lies
// within delta, and most (layer, token) pairs are charged, not bounded one by one.
BOOST_AUTO_TEST_CASE(placement_chains_charge_the_untouched_tokens_and_stay_within_delta) {
  const auto seed = base_seed("placement");
  Gen g{std::mt19937_64(seed)};
  std::size_t certified = 0, runs = 0, bounded = 0, charged = 0;
  for (int trial = 0; trial < 30; ++trial) {
    Dataset data0 = random_chain_data(g, g.range(6, 12), 3, 8);
    Point r = g.point(data0.dimension);
    if (r.isZero()) r[0] = 1;
    const PlacementChain chain = placement_chain(std::move(data0), r);
    const auto& [data, model, tokens] = chain;
    if (model.blocks.empty()) continue;
    const FloatRunFacts f = bound_float_run(model, data, Setting::hardmax, Rational(1), 200);
    BOOST_TEST(f.certified, "trial " << trial << ": " << f.failure);
    if (!f.certified) continue;
    ++certified;
    bounded += f.tokens_bounded;
    charged += f.tokens_charged;
    BOOST_TEST(f.tokens_bounded + f.tokens_charged == model.blocks.size() * tokens);
    for (const auto& pair : data.pairs) expect_hardmax_runs_within(model, pair.input.points(), f.delta, trial, runs);
  }
  std::cout << "placement: " << certified << " chains certified, " << runs << " float runs; " << bounded
            << " token bounds one by one, " << charged << " by charges\n";
  BOOST_TEST(certified >= 25u);
  BOOST_TEST(charged > 2 * bounded);
}

// Long chains with far tokens: N sequences in R^2 read along e1, each with a leader at reading
// j/64, two tokens just right of it and one far right at reading 2^30 + j. The far tokens owe
// large charges (each hat's rounding grows with the distance), so the shared margin of
// lem:float-run-sparse covers many leaders' spacings; the tokens near a later window owe little,
// and their own margins keep them out of its band: a few tokens per hat are bounded one by one
// (the shared margin alone bounds nearly every token at every hat), and the float runs still
// lie within delta.
BOOST_AUTO_TEST_CASE(long_placement_chains_bound_only_tokens_near_each_window) {
  const auto seed = base_seed("placement");
  Gen g{std::mt19937_64(seed + 1)};
  std::size_t certified = 0, runs = 0;
  for (int trial = 0; trial < 3; ++trial) {
    Dataset data;
    data.dimension = 2;
    const long N = g.range(250, 350);
    for (long j = 0; j < N; ++j) {
      SequencePair p;
      auto token = [&](const Rational& reading) {
        Point x(2);
        x << reading, Rational(g.range(-64, 64), 64);
        p.input.push_back(x);
      };
      token(Rational(j, 64));
      token(Rational(j, 64) + Rational(g.range(1, 15), 1024));
      token(Rational(j, 64) + Rational(g.range(1, 15), 1024) + Rational(1, 2048));
      token(Rational(1 << 30) + j);
      p.output.push_back(p.input[0]);
      data.pairs.push_back(p);
    }
    Point r(2);
    r << 1, 0;
    const PlacementChain chain = placement_chain(std::move(data), r);
    const auto& [chain_data, model, tokens] = chain;
    const FloatRunFacts f = bound_float_run(model, chain_data, Setting::hardmax, Rational(1), 200);
    BOOST_TEST(f.certified, "trial " << trial << ": " << f.failure);
    if (!f.certified) continue;
    ++certified;
    std::cout << "long chain " << trial << ": " << model.blocks.size() << " hats, " << tokens << " tokens, "
              << f.tokens_bounded << " token bounds one by one\n";
    BOOST_TEST(f.tokens_bounded + f.tokens_charged == model.blocks.size() * tokens);
    BOOST_TEST(f.tokens_bounded <= 4 * model.blocks.size());
    for (std::size_t j = 0; j < chain_data.pairs.size(); j += 23)
      expect_hardmax_runs_within(model, chain_data.pairs[j].input.points(), f.delta, trial, runs);
  }
  BOOST_TEST(certified == 3u);
}

// lem:plateau-hat: a token that owes a large rounding charge (far right of a narrow first hat)
// and is then moved by its own narrow hat. The triangle's kink amplifies the token's reading error
// by about |D| / delta (lem:float-reading); the plateau's active units cancel, so the bound keeps
// about the charge. Both statements hold for actual float runs in three summation orders.
BOOST_AUTO_TEST_CASE(a_plateau_hat_does_not_amplify_its_leaders_error) {
  Dataset data;
  data.dimension = 2;
  SequencePair p;
  for (const Rational& t : {Rational(0), Rational(1), Rational(1) + Rational(1, 1024)}) {
    Point x(2);
    x << t, Rational(1, 3);
    p.input.push_back(x);
  }
  p.output.push_back(p.input[0]);
  data.pairs.push_back(p);
  Point r(2), left(2);
  r << 1, 0;
  left << -1, 0;
  std::vector<double> delta;
  for (const bool plateau : {false, true}) {
    Transformer<Rational> model;
    model.dimension = 2;
    // Token 1 (reading 0) to reading -5 through a window of half-width 2^-20, then token 2 (reading 1)
    // to reading -9 through one of 2^-12 (token 3 reads 2^-10 right of it).
    model.blocks.push_back({SelfAttention<Rational>::identity(),
                            move_layer({r, Rational(0), Rational(1, 1 << 20), Point(left * 5)}, plateau), Phase::user});
    model.blocks.push_back({SelfAttention<Rational>::identity(),
                            move_layer({r, Rational(1), Rational(1, 1 << 12), Point(left * 10)}, plateau), Phase::user});
    const FloatRunFacts f = bound_float_run(model, data, Setting::hardmax, Rational(1), 200);
    BOOST_TEST_REQUIRE(f.certified, (plateau ? "plateau: " : "hat: ") << f.failure);
    std::size_t runs = 0;
    expect_hardmax_runs_within(model, data.pairs[0].input.points(), f.delta, plateau, runs);
    BOOST_TEST(runs == 3u);
    delta.push_back(f.delta);
  }
  std::cout << "plateau: delta " << delta[1] << " against the hat's " << delta[0] << "\n";
  BOOST_TEST(delta[1] * 1000 < delta[0]);
}

BOOST_AUTO_TEST_SUITE_END()
