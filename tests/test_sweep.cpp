// Seeded random sweep of the whole pipeline in-process: build the interpolating transformer,
// certify it exactly (hardmax, bounds and brute Lemma P), in softmax, and compare the dense
// reference forward pass with the targets. Plus adversarial shapes built by hand.
//
// The base seed is printed; SEQI_SEED=<seed> replays the same sweep. SEQI_SWEEP_COUNT=<n>
// changes the number of random datasets (default below).
#include <boost/test/unit_test.hpp>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <iostream>
#include <random>
#include <string>
#include <vector>

#include "seqi/certification/run_report.hpp"
#include "distinct_targets.hpp"
#include "sweep_support.hpp"
#include "seqi/io/hypotheses.hpp"
#include "seqi/io/random_dataset.hpp"
#include "seqi/model/transformer.hpp"
#include "seqi/numbers/point_set.hpp"

BOOST_AUTO_TEST_SUITE(test_sweep)

using namespace seqi;
using namespace seqi_test::sweep;

namespace {

std::size_t sweep_count() {
  const char* s = std::getenv("SEQI_SWEEP_COUNT");
  return s ? std::strtoull(s, nullptr, 10) : 600;
}

Rational R(const std::string& text) {
  auto r = parse_rational(text);
  BOOST_REQUIRE_MESSAGE(r.has_value(), "parse_rational(\"" << text << "\")");
  return *r;
}

Point P(std::initializer_list<Rational> xs) {
  Point p(static_cast<Eigen::Index>(xs.size()));
  Eigen::Index k = 0;
  for (const auto& x : xs) p[k++] = x;
  return p;
}

Point P(std::initializer_list<long> xs) {
  Point p(static_cast<Eigen::Index>(xs.size()));
  Eigen::Index k = 0;
  for (long x : xs) p[k++] = Rational(x);
  return p;
}

std::size_t sum_m(const Dataset& d) {
  std::size_t s = 0;
  for (const auto& p : d.pairs) s += p.output.size();
  return s;
}

// The dense reference forward pass of every sequence equals its targets as sets.
void expect_dense_pass_interpolates(const Dataset& data, const Transformer<Rational>& model) {
  for (std::size_t j = 0; j < data.pairs.size(); ++j) {
    const auto out = forward_dense(model, data.pairs[j].input.points());
    BOOST_TEST(out.size() == data.pairs[j].input.size());
    BOOST_TEST(equal_as_sets(out, data.pairs[j].output.points()), "dense forward pass of sequence " << j + 1);
  }
}

// Hardmax certificate of our construction: verified, every check passed, counts as the theorem says.
void expect_hardmax_certificate(const Dataset& data, const Construction& built, const Certificate& cert) {
  const std::size_t N = data.pairs.size(), sm = sum_m(data);
  BOOST_TEST((cert.setting == Setting::hardmax));
  BOOST_TEST(cert.verified);
  // lem:float-run is a separate claim, not shown yet where the construction is badly conditioned.
  for (const auto& c : cert.checks) BOOST_TEST((c.passed || c.lemma == "lem:float-run"), c.name << " (" << c.lemma << "): " << c.detail);
  BOOST_TEST(cert.sequences.size() == N);
  for (std::size_t j = 0; j < cert.sequences.size(); ++j) {
    BOOST_TEST(cert.sequences[j].matches, "sequence " << j + 1 << ": " << cert.sequences[j].detail);
    BOOST_TEST(cert.sequences[j].n == data.pairs[j].input.size());
    BOOST_TEST(cert.sequences[j].m == data.pairs[j].output.size());
  }
  const Counts& c = cert.counts;
  BOOST_TEST(c.N == N);
  BOOST_TEST(c.sum_m == sm);
  BOOST_TEST(c.d == static_cast<std::size_t>(data.dimension));
  BOOST_TEST(c.blocks == built.model.blocks.size());
  BOOST_TEST(c.blocks_bound_hardmax == 2 * sm + 2 * N + 1);
  BOOST_TEST(c.blocks <= 2 * sm + 2 * N + 1);
  // lem:fewer-blocks-count: K + sum(m) + D, or at most 2 more where grouping saves at most 2.
  if (const auto& rec = built.record.interpolation; rec.by_hinges) {  // lem:hinge-interpolation
    BOOST_TEST(c.blocks_bound_grouped == (N + 4) / 4);
    BOOST_TEST(c.blocks == (rec.hinges + (N > 1 ? 2 : 1) + 3) / 4);
  } else if (built.record.mean_collapse) {  // lem:mean-collapse
    BOOST_TEST(c.blocks_bound_grouped == N + (rec.has_offset() ? 1 : 0));
    BOOST_TEST(c.blocks == rec.runs.size() + (rec.has_offset() ? 1 : 0));
  } else {
    BOOST_TEST(c.blocks_bound_grouped == built.record.separation.lifts + sm + distinct_targets(data) + 2);
    if (const auto runs = promised_runs(data)) BOOST_TEST(c.blocks == built.record.separation.lifts + sm + *runs);
  }
  BOOST_TEST(c.blocks <= c.blocks_bound_grouped);
  BOOST_TEST(c.width <= 4u);
  BOOST_TEST(built.model.max_width() <= 4u);
  std::size_t by_phase = 0;
  for (const auto& [phase, n] : c.blocks_by_phase) by_phase += n;
  BOOST_TEST(by_phase == c.blocks);
  BOOST_TEST(c.params <= c.params_bound);
  BOOST_TEST(built.model.dimension == data.dimension);
}

void expect_softmax_certificate(const Dataset& data, const RunReport& run) {
  const Certificate& cert = run.certificate;
  const std::size_t N = data.pairs.size(), sm = sum_m(data);
  BOOST_TEST((cert.setting == Setting::softmax));
  BOOST_TEST(cert.verified);
  // lem:float-run is a separate claim, not shown yet where the construction is badly conditioned.
  for (const auto& c : cert.checks) BOOST_TEST((c.passed || c.lemma == "lem:float-run"), c.name << " (" << c.lemma << "): " << c.detail);
  BOOST_TEST(cert.counts.blocks <= 2 * sm + 3 * N);
  BOOST_TEST(cert.counts.blocks_bound_softmax == 2 * sm + 3 * N);
  BOOST_REQUIRE(cert.softmax.has_value());
  const SoftmaxFacts& f = *cert.softmax;
  BOOST_TEST(f.tau_per_sequence.size() == N);
  bool any_constraint = false;
  for (const auto& t : f.tau_per_sequence) {
    if (!t) continue;
    any_constraint = true;
    BOOST_TEST(*t > 0);
    if (!f.tau_unbounded) BOOST_TEST(f.tau_star_lower <= *t);  // the minimum, rounded down
  }
  BOOST_TEST(f.tau_unbounded == !any_constraint);
  if (f.tau_unbounded) {
    BOOST_TEST(f.tau_checked == Rational(1));
  } else {
    BOOST_TEST(f.tau_star_lower > 0);
    BOOST_TEST(f.tau_checked == f.tau_star_lower / 2);
    BOOST_REQUIRE(f.binding_sequence < N);
    BOOST_REQUIRE(f.tau_per_sequence[f.binding_sequence].has_value());
  }
  BOOST_TEST(f.flat_halfwidth > 0);
  BOOST_TEST(f.max_enclosure_radius >= 0);
  BOOST_TEST(f.max_enclosure_radius <= f.flat_halfwidth);
  BOOST_REQUIRE(run.measurements.float_runs.size() == 2u);  // float64, float32 (measurements)
  BOOST_TEST(run.measurements.float_runs[0].nonfinite == 0u);
  BOOST_TEST(run.measurements.float_runs[0].sequences_checked == N);
}

// Everything on one dataset; `level` 0: hardmax; 1: + brute and softmax; 2: + dense pass.
Construction certify_all(const Dataset& data, std::uint64_t seed, int level) {
  auto built = build_named(data, seed);
  BOOST_TEST(built.record.seed == seed);
  const auto hard = certify_construction_hardmax(data, built, false).certificate;
  expect_hardmax_certificate(data, built, hard);
  if (level >= 1) {
    const auto brute = certify_construction_hardmax(data, built, true).certificate;
    expect_hardmax_certificate(data, built, brute);
    const auto soft_run = certify_construction_softmax(data, built, SoftmaxOptions{});
    expect_softmax_certificate(data, soft_run);
    const Certificate& soft = soft_run.certificate;
    // One transformer serves both settings: same blocks, same parameters.
    BOOST_TEST(soft.counts.blocks == hard.counts.blocks);
    BOOST_TEST(soft.counts.params == hard.counts.params);
    BOOST_TEST(soft.counts.param_norm_sq == hard.counts.param_norm_sq);
  }
  if (level >= 2) expect_dense_pass_interpolates(data, built.model);
  return built;
}

}  // namespace

BOOST_AUTO_TEST_CASE(seeded_random_sweep) {
  const std::uint64_t base = base_seed();
  const std::size_t count = sweep_count();
  const auto t0 = std::chrono::steady_clock::now();
  std::size_t shared_cases = 0, lifted_cases = 0, max_N = 0, max_n = 0, max_d = 0;
  for (std::size_t k = 0; k < count; ++k) {
    const std::uint64_t seed = base + k;
    std::mt19937_64 g(seed * 0x9E3779B97F4A7C15ull + 12345);
    auto pick = [&](std::size_t lo, std::size_t hi) { return lo + g() % (hi - lo + 1); };
    RandomDatasetSpec spec;
    spec.d = static_cast<int>(k % 4 == 0 ? pick(2, 3) : pick(2, 16));  // small d often: most coincidences
    spec.N = pick(1, 12);
    spec.n_max = pick(1, 12);
    spec.n_min = pick(1, spec.n_max);
    spec.m_max = g() % 3 == 0 ? pick(1, spec.n_max) : 0;  // 0: m_j uniform in [1, n_j]
    spec.max_denominator = g() % 4 == 0 ? static_cast<long>(pick(2, 3)) : 1;
    spec.share_probability = k % 2 ? 0.25 + 0.25 * static_cast<double>(g() % 3) : 0.0;
    spec.coordinate_range = smallest_safe_range(spec.d, 2 * std::max(spec.N, spec.n_max), static_cast<long>(pick(1, 3)));
    const Dataset data = random_dataset(spec, seed);
    const int level = k % 10 == 0 ? 2 : k % 5 == 0 ? 1 : 0;
    BOOST_TEST_CONTEXT("sweep dataset k=" << k << " seed=" << seed << " (" << data.name << ", n_max " << spec.n_max
                                          << ", m_max " << spec.m_max << ", range " << spec.coordinate_range
                                          << ", share " << spec.share_probability << ")") {
      Dataset checked = data;
      BOOST_REQUIRE_NO_THROW(check_hypotheses(checked, data.name));
      BOOST_TEST(checked.pairs.size() == data.pairs.size());
      const auto built = certify_all(data, seed, level);
      if (built.record.separation.shift_used) ++shared_cases;
      if (built.record.separation.lifts > 0) ++lifted_cases;
    }
    max_N = std::max(max_N, data.pairs.size());
    for (const auto& p : data.pairs) max_n = std::max(max_n, p.input.size());
    max_d = std::max(max_d, static_cast<std::size_t>(data.dimension));
  }
  std::cout << "sweep: " << count << " random datasets (max N " << max_N << ", max n " << max_n << ", max d " << max_d
            << "; " << shared_cases << " with shared tokens, " << lifted_cases << " with lifts) in "
            << seconds_since(t0) << " s\n";
  // The sweep must exercise the separation phase, not only disjoint sequences.
  if (count >= 50) {
    BOOST_TEST(shared_cases > 0u);
    BOOST_TEST(lifted_cases > 0u);
  }
}

namespace {

// Random small point with integer coordinates in [-r, r].
Point random_point(std::mt19937_64& g, int d, long r) {
  Point p(d);
  for (int k = 0; k < d; ++k) p[k] = Rational(static_cast<long>(g() % static_cast<std::uint64_t>(2 * r + 1)) - r);
  return p;
}

// m distinct random targets (from a tiny range, so targets repeat across pairs).
Sequence random_targets(std::mt19937_64& g, int d, std::size_t m) {
  Sequence out;
  while (out.size() < m) {
    Point y = random_point(g, d, 2);
    if (std::none_of(out.begin(), out.end(), [&](const Point& q) { return equal_points(q, y); })) out.push_back(y);
  }
  return out;
}

// Inputs are the subsets of `pool` given by distinct nonzero masks over `groups` (each group a
// list of pool indices taken together); pool points must be pairwise distinct.
Dataset dataset_from_groups(std::mt19937_64& g, const std::string& name, int d, const std::vector<Point>& pool,
                            const std::vector<std::vector<std::size_t>>& groups, std::size_t N) {
  Dataset data;
  data.name = name;
  data.dimension = d;
  const std::uint64_t full = (std::uint64_t{1} << groups.size()) - 1;
  std::vector<std::uint64_t> used;
  for (std::size_t tries = 0; data.pairs.size() < N && tries < 50 * N; ++tries) {
    const std::uint64_t mask = 1 + g() % full;
    if (std::find(used.begin(), used.end(), mask) != used.end()) continue;
    used.push_back(mask);
    Sequence in;
    for (std::size_t k = 0; k < groups.size(); ++k)
      if (mask >> k & 1)
        for (std::size_t i : groups[k]) in.push_back(pool[i]);
    std::shuffle(in.begin(), in.end(), g);
    const std::size_t m = 1 + g() % in.size();
    data.pairs.push_back({TokenSequence(in), TokenSequence(random_targets(g, d, m))});
  }
  return data;
}

bool pairwise_distinct(const std::vector<Point>& pts) { return !find_equal_pair(pts).has_value(); }

// Every input has the same mean c: c alone, or c with symmetric pairs c +- v_a, or the pairs alone.
Dataset random_equal_means(std::mt19937_64& g, int d, std::size_t K, std::size_t N) {
  std::vector<Point> pool;
  do {
    pool.clear();
    const Point c = random_point(g, d, 2);
    pool.push_back(c);
    for (std::size_t a = 0; a < K; ++a) {
      const Point v = random_point(g, d, 2);
      pool.push_back(Point(c + v));
      pool.push_back(Point(c - v));
    }
  } while (!pairwise_distinct(pool));
  std::vector<std::vector<std::size_t>> groups{{0}};
  for (std::size_t a = 0; a < K; ++a) groups.push_back({1 + 2 * a, 2 + 2 * a});
  return dataset_from_groups(g, "random equal-means d=" + std::to_string(d), d, pool, groups, N);
}

// Inputs nested along a chain (prefixes of one token list) and random subsets of it.
Dataset random_nested(std::mt19937_64& g, int d, std::size_t L, std::size_t N) {
  std::vector<Point> pool;
  do {
    pool.clear();
    for (std::size_t i = 0; i < L; ++i) pool.push_back(random_point(g, d, d == 2 ? 2 : 1));
  } while (!pairwise_distinct(pool));
  std::vector<std::vector<std::size_t>> groups;
  for (std::size_t i = 0; i < L; ++i) groups.push_back({i});
  Dataset data = dataset_from_groups(g, "random nested d=" + std::to_string(d), d, pool, groups, N / 2);
  // prefixes pool[0..k) that are not already present
  for (std::size_t k = 1; k <= L && data.pairs.size() < N; ++k) {
    Sequence in(pool.begin(), pool.begin() + static_cast<long>(k));
    const bool present = std::any_of(data.pairs.begin(), data.pairs.end(),
                                     [&](const SequencePair& p) { return equal_as_sets(p.input.points(), in); });
    if (!present) data.pairs.push_back({TokenSequence(in), TokenSequence(random_targets(g, d, 1 + g() % k))});
  }
  return data;
}

}  // namespace

// Random datasets with forced coincidences: equal means with shared tokens (lifts needed) and
// nested inputs. Same replay rule as the main sweep (SEQI_SEED).
BOOST_AUTO_TEST_CASE(seeded_structured_sweep) {
  const std::uint64_t base = base_seed();
  const std::size_t count = std::max<std::size_t>(sweep_count() / 4, 1);
  const auto t0 = std::chrono::steady_clock::now();
  std::size_t lifted = 0;
  for (std::size_t k = 0; k < count; ++k) {
    const std::uint64_t seed = base + 1000003 * (k + 1);
    std::mt19937_64 g(seed);
    const int d = static_cast<int>(2 + g() % (k % 3 == 0 ? 2 : 15));
    const std::size_t N = 1 + g() % 12;
    const Dataset data = k % 2 ? random_nested(g, d, 2 + g() % 8, N) : random_equal_means(g, d, 1 + g() % 4, N);
    const int level = k % 10 == 0 ? 2 : k % 5 == 0 ? 1 : 0;
    BOOST_TEST_CONTEXT("structured dataset k=" << k << " seed=" << seed << " (" << data.name << ", N "
                                               << data.pairs.size() << ")") {
      Dataset checked = data;
      BOOST_REQUIRE_NO_THROW(check_hypotheses(checked, data.name));
      BOOST_TEST(checked.pairs.size() == data.pairs.size());
      const auto built = certify_all(data, seed, level);
      lifted += built.record.separation.lifts > 0;
    }
  }
  std::cout << "sweep: " << count << " structured datasets (" << lifted << " with lifts) in " << seconds_since(t0)
            << " s\n";
  if (count >= 20) BOOST_TEST(lifted > count / 10);
}

BOOST_AUTO_TEST_CASE(same_seed_same_transformer) {
  RandomDatasetSpec spec;
  spec.N = 6;
  spec.n_max = 6;
  spec.d = 3;
  spec.coordinate_range = 2;
  spec.share_probability = 0.5;
  const Dataset data = random_dataset(spec, base_seed());
  const auto a = build_interpolating_transformer(data, 7), b = build_interpolating_transformer(data, 7);
  const auto ca = certify_construction_hardmax(data, a, false).certificate;
  const auto cb = certify_construction_hardmax(data, b, false).certificate;
  BOOST_TEST(ca.verified);
  BOOST_TEST(ca.counts.blocks == cb.counts.blocks);
  BOOST_TEST(ca.counts.param_norm_sq == cb.counts.param_norm_sq);
  BOOST_TEST(a.record.seed == 7u);
}

// ---- adversarial shapes ------------------------------------------------------------------

BOOST_AUTO_TEST_CASE(nested_inputs) {
  // X_1 c X_2 c ... c X_6: every input a strict subset of the next, outputs overlapping.
  for (int d : {2, 3, 7}) {
    Dataset data;
    data.name = "nested d=" + std::to_string(d);
    data.dimension = d;
    Sequence chain;
    for (int j = 0; j < 6; ++j) {
      Point p = Point::Zero(d);
      p[j % d] = Rational(j + 1);
      p[(j + 1) % d] += Rational(-j, 2);
      chain.push_back(p);
      Sequence out;
      for (int l = 0; l <= j / 2; ++l) {
        Point y = Point::Zero(d);
        y[0] = Rational(l);
        y[1] = Rational(j % 2);
        out.push_back(y);
      }
      data.pairs.push_back({TokenSequence(chain), TokenSequence(out)});
    }
    // and a pair whose input is a subset of the others and whose target is one of its inputs
    data.pairs.push_back({{chain[1], chain[3]}, {chain[3]}});
    BOOST_TEST_CONTEXT(data.name) { certify_all(data, base_seed(), 2); }
  }
}

BOOST_AUTO_TEST_CASE(equal_means_sharing_tokens) {
  // Every input has mean c; many share c and the pairs c +- v.
  for (int d : {2, 3, 5}) {
    Dataset data;
    data.name = "equal-means d=" + std::to_string(d);
    data.dimension = d;
    Point c = Point::Zero(d);
    c[0] = Rational(1);
    std::vector<Point> v;
    for (int k = 0; k < 4; ++k) {
      Point w = Point::Zero(d);
      w[k % d] += Rational(k + 1);
      w[(k + 1) % d] += Rational(1, k + 1);
      v.push_back(w);
    }
    auto target = [&](int j) {
      Point y = Point::Zero(d);
      y[1] = Rational(j);
      return y;
    };
    int j = 0;
    data.pairs.push_back({{c}, {target(j++)}});
    for (int a = 0; a < 4; ++a) {
      data.pairs.push_back({{Point(c + v[a]), Point(c - v[a])}, {target(j++)}});
      data.pairs.push_back({{c, Point(c + v[a]), Point(c - v[a])}, {target(j++), target(j + 50)}});
      for (int b = a + 1; b < 4; ++b)
        data.pairs.push_back({{Point(c + v[a]), Point(c - v[a]), Point(c + v[b]), Point(c - v[b])}, {target(j++)}});
    }
    BOOST_TEST_CONTEXT(data.name << " with " << data.pairs.size() << " pairs") { certify_all(data, base_seed(), 2); }
  }
}

BOOST_AUTO_TEST_CASE(collinear_tokens) {
  // All inputs and outputs on one line through the origin, in d = 2, 4, 9.
  for (int d : {2, 4, 9}) {
    Dataset data;
    data.name = "collinear d=" + std::to_string(d);
    data.dimension = d;
    Point u(d);
    for (int k = 0; k < d; ++k) u[k] = Rational(k % 3 - 1 == 0 ? 2 : k % 3 - 1, k + 1);
    auto on_line = [&](long t, long q = 1) { return Point(u * Rational(t, q)); };
    data.pairs.push_back({{on_line(0), on_line(1), on_line(2)}, {on_line(7)}});
    data.pairs.push_back({{on_line(-1), on_line(1)}, {on_line(1, 2), on_line(-1, 2)}});
    data.pairs.push_back({{on_line(3), on_line(-2), on_line(0)}, {on_line(-3), on_line(5)}});
    data.pairs.push_back({{on_line(1, 3), on_line(2, 3)}, {on_line(1, 3)}});
    data.pairs.push_back({{on_line(0), on_line(1)}, {on_line(0), on_line(1)}});
    data.pairs.push_back({{on_line(0)}, {on_line(100)}});
    BOOST_TEST_CONTEXT(data.name) { certify_all(data, base_seed(), 2); }
  }
}

BOOST_AUTO_TEST_CASE(huge_and_tiny_coordinates) {
  const Rational big = R("1e40"), tiny = R("1e-40");
  BOOST_TEST(big * tiny == Rational(1));
  Dataset data;
  data.name = "huge-and-tiny";
  data.dimension = 2;
  data.pairs.push_back({{P({big, Rational(0)}), P({Rational(0), tiny})}, {P({tiny, tiny})}});
  data.pairs.push_back({{P({big, tiny}), P({Rational(0), tiny}), P({-big, -big})}, {P({big, big}), P({Rational(1), Rational(0)})}});
  data.pairs.push_back({{P({tiny, Rational(0)}), P({Rational(0), tiny})}, {P({Rational(0), -tiny})}});
  data.pairs.push_back({{P({big + 1, big}), P({big, big + 1})}, {P({big + 1, big})}});  // close in relative terms
  data.pairs.push_back({{P({tiny, Rational(0)})}, {P({-big, tiny})}});
  BOOST_TEST_CONTEXT(data.name) { certify_all(data, base_seed(), 2); }

  Dataset d3;
  d3.name = "huge-and-tiny d3";
  d3.dimension = 3;
  d3.pairs.push_back({{P({big, tiny, Rational(1)}), P({big, tiny, Rational(2)})}, {P({Rational(0), Rational(0), Rational(0)})}});
  d3.pairs.push_back({{P({big, tiny, Rational(1)}), P({tiny, big, Rational(1)})}, {P({tiny, tiny, tiny}), P({big, big, big})}});
  d3.pairs.push_back({{P({big, tiny, Rational(2)}), P({tiny, big, Rational(1)}), P({big, tiny, Rational(1)})},
                      {P({R("-1e-40"), Rational(0), Rational(0)})}});
  BOOST_TEST_CONTEXT(d3.name) { certify_all(d3, base_seed() + 1, 2); }
}

BOOST_AUTO_TEST_CASE(targets_are_inputs_and_shared_across_pairs) {
  // m_j = n_j with Y_j = X_j (identity), and outputs equal across distinct inputs.
  Dataset data;
  data.name = "identity-and-shared-targets";
  data.dimension = 2;
  data.pairs.push_back({{P({0L, 0L}), P({1L, 0L}), P({0L, 1L})}, {P({0L, 0L}), P({1L, 0L}), P({0L, 1L})}});
  data.pairs.push_back({{P({0L, 0L}), P({1L, 0L})}, {P({0L, 1L}), P({5L, 5L})}});
  data.pairs.push_back({{P({1L, 0L}), P({0L, 1L})}, {P({5L, 5L}), P({0L, 1L})}});
  data.pairs.push_back({{P({0L, 0L})}, {P({0L, 0L})}});
  data.pairs.push_back({{P({1L, 0L})}, {P({0L, 0L})}});
  BOOST_TEST_CONTEXT(data.name) { certify_all(data, base_seed(), 2); }
}

BOOST_AUTO_TEST_CASE(high_dimension_tokens_differing_in_one_coordinate) {
  const int d = 16;
  Dataset data;
  data.name = "one-coordinate d=16";
  data.dimension = d;
  auto e = [&](int k, long v) {
    Point p = Point::Zero(d);
    p[k % d] = Rational(v);
    return p;
  };
  for (int j = 0; j < 8; ++j) {
    Sequence in;
    for (int l = 0; l <= j; ++l) in.push_back(e(d - 1, l));  // nested along the last axis
    data.pairs.push_back({TokenSequence(in), in.size() < 2 ? TokenSequence{e(j, 1)} : TokenSequence{e(j, 1), e(j, 2)}});
  }
  BOOST_TEST_CONTEXT(data.name) { certify_all(data, base_seed(), 2); }
}

BOOST_AUTO_TEST_SUITE_END()
