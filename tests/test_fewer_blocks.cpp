#include <boost/test/unit_test.hpp>

#include <cstdlib>
#include <iostream>
#include <random>

#include "seqi/certification/run_report.hpp"
#include "seqi/construction/grouped_places.hpp"
#include "seqi/construction/hats.hpp"
#include "seqi/io/random_dataset.hpp"
#include "distinct_targets.hpp"

BOOST_AUTO_TEST_SUITE(test_fewer_blocks)

using namespace seqi;

// One flat hat per run of clusters with one target (proofs/fewer-blocks.tex): real block
// counts on datasets with repeated targets, the bound K + sum(m) + D + 2 over a seeded sweep,
// and the run checks failing on a tampered record.

namespace {

std::uint64_t base_seed() {
  const char* s = std::getenv("SEQI_SEED");
  std::uint64_t seed = s ? std::strtoull(s, nullptr, 10) : 20261130;
  std::cout << "fewer-blocks tests: SEQI_SEED=" << seed << " to replay\n";
  return seed;
}

Point point_of(std::mt19937_64& g, int d, long range) {
  std::uniform_int_distribution<long> c(-range, range);
  Point p(d);
  for (int i = 0; i < d; ++i) p[i] = Rational(c(g), 1 + g() % 3);
  return p;
}

// N pairs in dimension d; inputs of n_j in [1, n_max] distinct tokens (sequences with distinct
// token sets), targets m_j in [1, min(n_j, m_max)] distinct points drawn from a pool of
// `pool` points, so that targets repeat across sequences.
Dataset pooled_dataset(std::uint64_t seed, std::size_t N, int d, std::size_t n_max, std::size_t m_max,
                       std::size_t pool) {
  std::mt19937_64 g(seed);
  std::vector<Point> targets;
  while (targets.size() < pool) {
    Point y = point_of(g, d, 9);
    bool fresh = true;
    for (const auto& t : targets) fresh = fresh && !equal_points(t, y);
    if (fresh) targets.push_back(y);
  }
  Dataset data;
  data.name = "pooled-" + std::to_string(seed);
  data.dimension = d;
  while (data.pairs.size() < N) {
    SequencePair pair;
    const std::size_t n = 1 + g() % n_max;
    while (pair.input.size() < n) {
      Point x = point_of(g, d, 6);
      bool fresh = true;
      for (const auto& t : pair.input) fresh = fresh && !equal_points(t, x);
      if (fresh) pair.input.push_back(x);
    }
    bool new_set = true;  // H3 (with distinct tokens per sequence, equal sets need equal sizes)
    for (const auto& other : data.pairs) {
      if (other.input.size() != n) continue;
      bool same = true;
      for (const auto& x : pair.input) {
        bool found = false;
        for (const auto& y : other.input) found = found || equal_points(x, y);
        same = same && found;
      }
      new_set = new_set && !same;
    }
    if (!new_set) continue;
    const std::size_t m = 1 + g() % std::min(n, std::min(m_max, pool));
    std::vector<std::size_t> idx(pool);
    for (std::size_t i = 0; i < pool; ++i) idx[i] = i;
    std::shuffle(idx.begin(), idx.end(), g);
    for (std::size_t l = 0; l < m; ++l) pair.output.push_back(targets[idx[l]]);
    data.pairs.push_back(std::move(pair));
  }
  return data;
}

std::size_t interpolation_blocks(const Transformer<Rational>& model) {
  std::size_t n = 0;
  for (const auto& b : model.blocks) n += b.phase == Phase::interpolation;
  return n;
}

void expect_all_checks_pass(const Certificate& cert) {
  for (const auto& c : cert.checks)
    BOOST_TEST((c.passed || c.lemma == "lem:float-run"), c.name << ": " << c.detail);
  BOOST_TEST(cert.verified);
}

bool check_passed(const Certificate& cert, const std::string& name_start) {
  for (const auto& c : cert.checks)
    if (c.name.rfind(name_start, 0) == 0) return c.passed;
  BOOST_FAIL("no check named " << name_start);
  return false;
}

}  // namespace

BOOST_AUTO_TEST_CASE(flat_run_layer_sends_its_whole_flat_to_the_target) {
  std::mt19937_64 g(base_seed());
  for (int trial = 0; trial < 50; ++trial) {
    const int d = 2 + trial % 3;
    Point r = point_of(g, d, 5);
    if (norm_sq(r) == 0) continue;
    const Point v = r / norm_sq(r);
    const Rational lo(static_cast<long>(g() % 41) - 20, 3), hi = lo + Rational(static_cast<long>(g() % 50), 7);
    const Rational df(1, 1 + static_cast<long>(g() % 16));
    const Point y = point_of(g, d, 9);
    const auto ff = flat_run_layer(r, v, lo, hi, df, y);
    BOOST_TEST(ff.U.rows() == 4);
    for (int k = 0; k <= 20; ++k) {
      const Rational t = lo - df + (hi - lo + 2 * df) * Rational(k, 20);  // the flat, ends included
      BOOST_TEST(equal_points(Point(ff.apply(Point(v * t))), y));
      const Rational out = k % 2 ? hi + 2 * df + Rational(k, 3) : lo - 2 * df - Rational(k, 3);
      const Point p = point_of(g, d, 9);
      const Point off = p + v * (out - dot(r, p));  // reading exactly `out`, off the line in general
      BOOST_TEST(equal_points(Point(ff.apply(off)), off));
    }
  }
}

BOOST_AUTO_TEST_CASE(classification_uses_one_interpolation_block_per_class) {
  const auto seed = base_seed();
  for (std::uint64_t k = 0; k < 3; ++k) {
    const auto data = pooled_dataset(seed + k, 40, 3, 4, 1, 4 + k);
    BOOST_TEST_CONTEXT(data.name) {
      const auto built = build_interpolating_transformer(data, seed + k, 1, {false});
      const std::size_t D = distinct_targets(data), K = built.record.separation.lifts;
      BOOST_TEST((D >= 2 && D <= 4 + k));  // the pool, as far as drawn
      BOOST_TEST(interpolation_blocks(built.model) == D);
      BOOST_TEST(built.model.blocks.size() == K + data.pairs.size() + D);
      const auto hard = certify_construction_hardmax(data, built, false).certificate;
      expect_all_checks_pass(hard);
      BOOST_TEST(hard.counts.distinct_targets == D);
      BOOST_TEST(hard.counts.blocks_bound_grouped == K + data.pairs.size() + D + 2);
      const auto soft = certify_construction_softmax(data, built, {}).certificate;
      expect_all_checks_pass(soft);
    }
  }
}

BOOST_AUTO_TEST_CASE(general_lengths_with_shared_targets_use_one_block_per_target) {
  const auto seed = base_seed();
  for (std::uint64_t k = 0; k < 3; ++k) {
    const auto data = pooled_dataset(seed + 10 + k, 12, 2 + static_cast<int>(k), 5, 3, 5);
    BOOST_TEST_CONTEXT(data.name) {
      const auto built = build_interpolating_transformer(data, seed + k, 1, {false});
      const std::size_t D = distinct_targets(data), K = built.record.separation.lifts;
      BOOST_TEST(data.sum_m() > data.pairs.size());  // some circle leaders
      BOOST_TEST(interpolation_blocks(built.model) == D);
      BOOST_TEST(built.model.blocks.size() == K + data.sum_m() + D);
      BOOST_TEST(built.model.blocks.size() < K + 2 * data.sum_m());
      expect_all_checks_pass(certify_construction_hardmax(data, built, false).certificate);
      expect_all_checks_pass(certify_construction_hardmax(data, built, true).certificate);
      expect_all_checks_pass(certify_construction_softmax(data, built, {}).certificate);
    }
  }
}

BOOST_AUTO_TEST_CASE(block_bound_holds_over_a_seeded_sweep) {
  const auto seed = base_seed();
  for (std::uint64_t k = 0; k < 24; ++k) {
    Dataset data;
    if (k % 2) {
      data = pooled_dataset(seed + 100 + k, 1 + k % 9, 2 + static_cast<int>(k % 3), 1 + k % 5, 1 + k % 4, 1 + k % 6);
    } else {
      RandomDatasetSpec spec;
      spec.N = 1 + k % 7;
      spec.n_max = 1 + k % 6;
      spec.d = 2 + static_cast<int>(k % 3);
      spec.coordinate_range = 1 + static_cast<long>(k % 3);  // small ranges: repeated targets
      spec.share_probability = k % 4 ? 0.0 : 0.5;
      data = random_dataset(spec, seed + k);
    }
    BOOST_TEST_CONTEXT(data.name << " (sweep " << k << ")") {
      const auto built = build_interpolating_transformer(data, seed + k, 1, {false});
      const std::size_t D = distinct_targets(data), K = built.record.separation.lifts;
      BOOST_TEST(built.model.blocks.size() <= K + data.sum_m() + D + 2);
      BOOST_TEST(interpolation_blocks(built.model) <= D + 2);
      if (const auto runs = promised_runs(data)) BOOST_TEST(interpolation_blocks(built.model) == *runs);
      // The runs the plateau count was planned for (lem:plateau-hat): the oracle's, else sum(m).
      BOOST_TEST(runs_of_grouped_places(data) == promised_runs(data).value_or(data.sum_m()));
      BOOST_TEST(interpolation_blocks(built.model) <= runs_of_grouped_places(data));
      const auto hard = certify_construction_hardmax(data, built, false).certificate;
      expect_all_checks_pass(hard);
      if (k % 4 == 1) expect_all_checks_pass(certify_construction_softmax(data, built, {}).certificate);
    }
  }
}

BOOST_AUTO_TEST_CASE(run_checks_fail_on_a_tampered_record) {
  const auto data = pooled_dataset(base_seed() + 7, 10, 2, 4, 2, 3);
  const auto built = build_interpolating_transformer(data, 7, 1, {false});
  BOOST_TEST_REQUIRE(built.record.interpolation.runs.size() >= 2);
  const std::string runs_check = "runs: one target each";
  BOOST_TEST(check_passed(certify_construction_hardmax(data, built, false).certificate, runs_check));

  auto merged = built;  // two runs with different targets declared one run
  auto& runs = merged.record.interpolation.runs;
  runs[0].insert(runs[0].end(), runs[1].begin(), runs[1].end());
  runs.erase(runs.begin() + 1);
  BOOST_TEST(!check_passed(certify_construction_hardmax(data, merged, false).certificate, runs_check));

  auto dropped = built;  // a cluster in no run
  dropped.record.interpolation.runs.front().pop_back();
  if (dropped.record.interpolation.runs.front().empty())
    dropped.record.interpolation.runs.erase(dropped.record.interpolation.runs.begin());
  BOOST_TEST(!check_passed(certify_construction_hardmax(data, dropped, false).certificate, runs_check));

  auto widened = built;  // a flat half-width so large that another cluster's z enters a window
  widened.record.interpolation.df *= 1024;
  BOOST_TEST(!check_passed(certify_construction_hardmax(data, widened, false).certificate, runs_check));

  auto extra = built;  // one more interpolation block than runs
  extra.model.blocks.push_back(extra.model.blocks.back());
  const auto cert = certify_construction_hardmax(data, extra, false).certificate;
  BOOST_TEST(!check_passed(cert, "blocks = K + sum(m) + runs"));
  BOOST_TEST(!cert.verified);
}

BOOST_AUTO_TEST_SUITE_END()
