#include <boost/test/unit_test.hpp>

#include <algorithm>
#include <iostream>
#include <limits>
#include <numeric>
#include <set>
#include <thread>

#include "seqi/certification/run_report.hpp"
#include "seqi/replay/float_replays.hpp"
#include "seqi/replay/float_replay.hpp"
#include "seqi/replay/replay_sample.hpp"
#include "seqi/construction/construction.hpp"
#include "seqi/io/random_dataset.hpp"
#include "seeded_oracles.hpp"

BOOST_AUTO_TEST_SUITE(test_replay_sample)

using namespace seqi;
using seqi::testing::base_seed;

namespace {

std::size_t tokens_of(const std::vector<std::size_t>& lengths, const std::vector<std::size_t>& chosen) {
  std::size_t t = 0;
  for (const std::size_t j : chosen) t += lengths[j];
  return t;
}

// A random dataset in d = 3 (coordinates up to 30, denominators up to 5) of N sequences of
// n_min .. n_max tokens, seeded by base_seed(name) (printed), built and certified under hardmax
// with Lemma P shown.
struct CertifiedRandom {
  Dataset data;
  Construction built;
  Certificate cert;
};
CertifiedRandom certified_random(const char* name, std::size_t N, std::size_t n_min, std::size_t n_max,
                                 std::size_t m_max) {
  const std::uint64_t seed = base_seed(name);
  std::cout << name << " seed " << seed << "\n";
  RandomDatasetSpec spec;
  spec.N = N;
  spec.n_min = n_min;
  spec.n_max = n_max;
  spec.m_max = m_max;
  spec.d = 3;
  spec.coordinate_range = 30;
  spec.max_denominator = 5;
  CertifiedRandom out{random_dataset(spec, seed), {}, {}};
  out.built = build_interpolating_transformer(out.data, seed);
  out.cert = certify_construction_hardmax(out.data, out.built, false).certificate;
  BOOST_REQUIRE(out.cert.lemma_p.has_value());
  BOOST_REQUIRE(out.cert.lemma_p->ok);
  return out;
}

}  // namespace

BOOST_AUTO_TEST_CASE(a_sample_within_the_budget_is_every_sequence) {
  const std::vector<std::size_t> lengths{3, 1, 4, 1, 5};
  const auto all = replay_sample(lengths, 2, 28, 7);  // 2 * 14 = 28 fits exactly
  BOOST_TEST(all == (std::vector<std::size_t>{0, 1, 2, 3, 4}), boost::test_tools::per_element());
  BOOST_TEST(replay_sample({}, 2, 0, 7).empty());
}

// Over the budget: ascending distinct indices, within the budget, as many as fit when all
// lengths are equal, spread over the whole range (not the first ones), and reproducible.
BOOST_AUTO_TEST_CASE(a_sample_over_the_budget_is_a_seeded_spread) {
  const std::uint64_t seed = base_seed("replay_sample");
  std::cout << "replay_sample seed " << seed << "\n";
  const std::vector<std::size_t> lengths(10000, 7);
  const double per_token = 3, budget = 3.0 * 7 * 500 + 1;  // room for exactly 500 sequences
  const auto s = replay_sample(lengths, per_token, budget, seed);
  BOOST_TEST(s.size() == 500u);
  BOOST_TEST(std::is_sorted(s.begin(), s.end()));
  BOOST_TEST(std::set<std::size_t>(s.begin(), s.end()).size() == s.size());
  BOOST_TEST(s.back() < lengths.size());
  // Every tenth of the range holds some of the sample (uniform: about 50 each).
  for (std::size_t part = 0; part < 10; ++part) {
    const auto in = std::count_if(s.begin(), s.end(), [&](std::size_t j) { return j / 1000 == part; });
    BOOST_TEST(in >= 20, "tenth " << part << " holds " << in);
  }
  BOOST_TEST(replay_sample(lengths, per_token, budget, seed) == s, boost::test_tools::per_element());
  BOOST_TEST(replay_sample(lengths, per_token, budget, seed + 1) != s);
}

// Unequal lengths: the sample's work stays within the budget; a first drawn sequence larger
// than the whole budget is still run alone (at least one sequence).
BOOST_AUTO_TEST_CASE(a_sample_stays_within_the_budget_and_is_never_empty) {
  std::vector<std::size_t> lengths(3000);
  for (std::size_t j = 0; j < lengths.size(); ++j) lengths[j] = 1 + (j * 37) % 19;
  const double per_token = 5;
  for (const double budget : {1.0, 100.0, 5000.0, 40000.0}) {
    const auto s = replay_sample(lengths, per_token, budget, 3);
    BOOST_REQUIRE(!s.empty());
    if (s.size() > 1) BOOST_TEST(per_token * static_cast<double>(tokens_of(lengths, s)) <= budget);
    if (budget == 1.0) BOOST_TEST(s.size() == 1u);
  }
}

// The replay's work estimate as FloatReplay forms it: per token, the tokens of each sequence, and the whole.
struct ReplayWork {
  double per_token = 0;
  std::vector<std::size_t> lengths;
  double whole = 0;
};
ReplayWork replay_work(const Transformer<Rational>& model, const Dataset& data) {
  ReplayWork w;
  for (const auto& b : model.blocks) w.per_token += static_cast<double>(b.ff.U.size() + b.ff.W.size());
  for (const auto& p : data.pairs) w.lengths.push_back(p.input.size());
  w.whole = w.per_token * static_cast<double>(std::accumulate(w.lengths.begin(), w.lengths.end(), std::size_t{0}));
  return w;
}

// float_run over a budget: it covers the sample (sequences_checked, sample_seed), and the
// wrong-leader count looks at exactly the sampled tokens under their dataset-wide index: the
// certified leaders give 0, leaders that no token has give every sampled token.
BOOST_AUTO_TEST_CASE(a_budgeted_float_run_replays_the_sample_with_its_own_token_indices) {
  const auto [data, built, cert] = certified_random("replay_sample_run", 60, 2, 6, 2);
  const auto& attends = cert.lemma_p->attends;
  const std::size_t collapse = built.record.collapse_block;
  const auto [per_token, lengths, whole] = replay_work(built.model, data);
  const double budget = whole / 4;
  const auto sample = replay_sample(lengths, per_token, budget, kReplaySampleSeed);
  BOOST_REQUIRE(sample.size() > 1u);
  BOOST_REQUIRE(sample.size() < data.pairs.size());

  const ReplayOutcome full = run_replay<double>(built.model, data, std::nullopt, collapse, attends, 1e-6);
  BOOST_TEST(full.sequences_checked == data.pairs.size());
  BOOST_TEST(!full.sample_seed.has_value());
  const ReplayOutcome part = run_replay<double>(built.model, data, std::nullopt, collapse, attends, 1e-6, 2, budget);
  BOOST_TEST(part.sequences_checked == sample.size());
  BOOST_TEST(part.sequences == data.pairs.size());
  BOOST_REQUIRE(part.sample_seed.has_value());
  BOOST_TEST(*part.sample_seed == kReplaySampleSeed);
  BOOST_TEST(full.wrong_leader == 0u);
  BOOST_TEST(part.wrong_leader == 0u);
  BOOST_TEST(part.max_relative_hausdorff <= full.max_relative_hausdorff);
  const std::vector<std::size_t> nowhere(attends.size(), std::numeric_limits<std::size_t>::max());
  const ReplayOutcome off = run_replay<double>(built.model, data, std::nullopt, collapse, nowhere, 1e-6, 1, budget);
  BOOST_TEST(off.wrong_leader == tokens_of(lengths, sample));
}

// A run whose whole estimate is within kReplayCompleteFactor budgets covers every sequence
// (no sample seed); just beyond, it covers the sample within one budget.
BOOST_AUTO_TEST_CASE(a_run_within_three_budgets_covers_every_sequence) {
  const auto [data, built, cert] = certified_random("replay_complete", 60, 2, 6, 2);
  const auto& attends = cert.lemma_p->attends;
  const std::size_t collapse = built.record.collapse_block;
  const auto [per_token, lengths, whole] = replay_work(built.model, data);
  const ReplayOutcome complete =
      run_replay<double>(built.model, data, std::nullopt, collapse, attends, 1e-6, 1, whole / kReplayCompleteFactor);
  BOOST_TEST(complete.sequences_checked == data.pairs.size());
  BOOST_TEST(!complete.sample_seed.has_value());
  const double budget = whole / kReplayCompleteFactor * (1 - 1e-9);
  const ReplayOutcome part = run_replay<double>(built.model, data, std::nullopt, collapse, attends, 1e-6, 1, budget);
  BOOST_TEST(part.sequences_checked == replay_sample(lengths, per_token, budget, kReplaySampleSeed).size());
  BOOST_TEST(part.sequences_checked < data.pairs.size());
  BOOST_TEST(part.sample_seed.has_value());
}

// The cross-check started early (BackgroundReplays: stage 1 on a low-priority thread while
// the caller works) gives the same two runs as the synchronous one, with and without softmax,
// whether finish() comes at once or after the background thread had time to work; dropped
// unfinished, it stops and joins its thread.
BOOST_AUTO_TEST_CASE(the_background_cross_check_equals_the_synchronous_one) {
  const auto [data, built, cert] = certified_random("background_cross_check", 150, 4, 20, 3);
  const auto& attends = cert.lemma_p->attends;
  const std::size_t collapse = built.record.collapse_block;
  auto expect_same = [](const ReplayOutcome& a, const ReplayOutcome& b) {
    BOOST_TEST(a.scalar == b.scalar);
    BOOST_TEST(a.rule == b.rule);
    BOOST_TEST(a.max_relative_hausdorff == b.max_relative_hausdorff);
    BOOST_TEST(a.sequences_off_target == b.sequences_off_target);
    BOOST_TEST(a.wrong_leader == b.wrong_leader);
    BOOST_TEST(a.nonfinite == b.nonfinite);
    BOOST_TEST(a.sequences_checked == b.sequences_checked);
  };
  for (const std::optional<double> tau : {std::optional<double>{}, std::optional<double>{0.25}}) {
    const FloatReplays sync = replay_float64_and_float32(built.model, data, tau, collapse, attends, 1);
    BOOST_TEST(sync.float64.sequences_checked == data.pairs.size());
    BOOST_TEST(sync.float64.rule == (tau ? "softmax" : "hardmax"));
    expect_same(sync.float64, replay_float64_and_float32(built.model, data, tau, collapse, attends, 0).float64);  // 0 runs as 1
    for (const auto wait : {std::chrono::milliseconds(0), std::chrono::milliseconds(200)}) {
      BackgroundReplays early(built.model, data, collapse, Execution{nullptr, 2, nullptr});
      std::this_thread::sleep_for(wait);
      const FloatReplays late = early.finish(tau, attends);
      expect_same(sync.float64, late.float64);
      expect_same(sync.float32, late.float32);
    }
  }
  BOOST_TEST(replay_float64_and_float32(built.model, data, std::nullopt, collapse, attends, 1).float64.wrong_leader == 0u);
  { const BackgroundReplays dropped(built.model, data, collapse, Execution{nullptr, 2, nullptr}); }
}

BOOST_AUTO_TEST_SUITE_END()
