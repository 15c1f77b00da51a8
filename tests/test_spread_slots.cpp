#include <boost/test/unit_test.hpp>

#include <algorithm>
#include <random>

#include "seqi/certification/run_report.hpp"
#include "seqi/certification/construction_checks.hpp"
#include "seqi/construction/grouped_places.hpp"
#include "seqi/construction/spread_slots.hpp"
#include "distinct_targets.hpp"
#include "seeded_oracles.hpp"

BOOST_AUTO_TEST_SUITE(test_spread_slots)

using namespace seqi;

// Slots of the grouped circle places by phase l / m_j (lem:spread-slots, lem:circle-gap in
// proofs/spread-slots.tex): the slot formula l N + j, groups kept consecutive, the closed form
// of the circle-neighbour gap against the inner products of the placed leaders, and the
// certificate's run check on real and tampered constructions.

namespace {

Point point(std::initializer_list<long> xs) {
  Point p(static_cast<Eigen::Index>(xs.size()));
  Eigen::Index i = 0;
  for (long x : xs) p[i++] = Rational(x);
  return p;
}

// N sequences of n = m + 1 tokens in dimension 2 with m targets; targets drawn from a pool of
// `pool` points (0: all distinct), so that equal targets repeat across sequences.
Dataset dataset_with_targets(std::mt19937_64& g, std::size_t N, std::size_t m, long pool) {
  Dataset data;
  data.name = "spread";
  data.dimension = 2;
  long fresh = 0;
  for (std::size_t j = 0; j < N; ++j) {
    SequencePair pair;
    for (std::size_t i = 0; i <= m; ++i) pair.input.push_back(point({static_cast<long>(j), static_cast<long>(i)}));
    std::vector<long> used;
    while (pair.output.size() < m) {
      const long y = pool > 0 ? static_cast<long>(g() % static_cast<std::uint64_t>(pool)) : fresh++;
      if (std::find(used.begin(), used.end(), y) != used.end()) continue;  // distinct within a sequence
      used.push_back(y);
      pair.output.push_back(point({y, -y}));
    }
    data.pairs.push_back(std::move(pair));
  }
  return data;
}

// Group of every cluster by exact equality of targets (independent of target_groups).
std::vector<std::size_t> groups_by_equality(const Dataset& data) {
  std::vector<Point> seen;
  std::vector<std::size_t> group;
  for (const auto& pair : data.pairs)
    for (const auto& y : pair.output) {
      std::size_t g = 0;
      while (g < seen.size() && !equal_points(seen[g], y)) ++g;
      if (g == seen.size()) seen.push_back(y);
      group.push_back(g);
    }
  return group;
}

}  // namespace

BOOST_AUTO_TEST_CASE(singleton_groups_get_slot_l_N_plus_j) {
  std::mt19937_64 g(testing::base_seed("spread_slots"));
  for (std::size_t N : {1u, 2u, 7u, 30u}) {
    const auto data = dataset_with_targets(g, N, 4, 0);
    const auto group = groups_by_equality(data);
    const auto slot = spread_slots(data, group);
    for (std::size_t j = 0; j < N; ++j)
      for (std::size_t l = 0; l < 4; ++l) BOOST_TEST(slot[4 * j + l] == l * N + j);
    BOOST_TEST(smallest_circle_slot_distance(data, slot) == N);
  }
}

BOOST_AUTO_TEST_CASE(slots_are_a_permutation_with_every_group_consecutive) {
  std::mt19937_64 g(testing::base_seed("spread_slots") + 1);
  for (int trial = 0; trial < 20; ++trial) {
    const std::size_t N = 1 + g() % 25, m = 1 + g() % 5;
    const auto data = dataset_with_targets(g, N, m, static_cast<long>(m + g() % 12));
    const auto group = groups_by_equality(data);
    const auto slot = spread_slots(data, group);
    std::vector<std::size_t> sorted = slot;
    std::sort(sorted.begin(), sorted.end());
    for (std::size_t s = 0; s < sorted.size(); ++s) BOOST_TEST(sorted[s] == s);
    const std::size_t groups = *std::max_element(group.begin(), group.end()) + 1;
    for (std::size_t h = 0; h < groups; ++h) {
      std::vector<std::size_t> in;
      for (std::size_t k = 0; k < group.size(); ++k)
        if (group[k] == h) in.push_back(slot[k]);
      std::sort(in.begin(), in.end());
      BOOST_TEST(in.back() - in.front() + 1 == in.size(), "group " << h << " is not consecutive");
    }
  }
}

BOOST_AUTO_TEST_CASE(circle_gap_closed_form_equals_the_smallest_inner_product_gap) {
  std::mt19937_64 g(testing::base_seed("spread_slots") + 2);
  for (int trial = 0; trial < 3; ++trial) {
    const auto data = dataset_with_targets(g, 6 + 3 * static_cast<std::size_t>(trial), 4, 9);
    BOOST_TEST_CONTEXT("trial " << trial) {
      const auto built = build_interpolating_transformer(data, 7 + static_cast<std::uint64_t>(trial));
      const auto& rec = built.record.placement;
      BOOST_TEST_REQUIRE(rec.collapse.has_value());  // the one-arc layout of lem:grouped-places (3)
      // Oracle: |P_l|^2 - <P_l, P_k> over all pairs of circle leaders of one sequence, from the
      // placed points themselves (the neighbours attain the minimum, lem:circle-neighbours).
      std::optional<Rational> want;
      for (const auto& placed : rec.placed)
        for (std::size_t l = 1; l < placed.size(); ++l)
          for (std::size_t k = 1; k < placed.size(); ++k)
            if (k != l) {
              const Rational gap = norm_sq(placed[l]) - dot(placed[l], placed[k]);
              if (!want || gap < *want) want = gap;
            }
      const auto got = smallest_circle_gap(rec);
      BOOST_TEST_REQUIRE(got.has_value());
      BOOST_TEST(*got == *want);
      // lem:circle-gap's lower bound from the smallest slot distance of the circle leaders.
      const auto slot = spread_slots(data, groups_by_equality(data));
      const std::size_t S = data.sum_m(), k = smallest_circle_slot_distance(data, slot);
      BOOST_TEST(*got >= Rational(441, 200) * Rational(static_cast<long>(k * k), static_cast<long>((S - 1) * (S - 1))));
    }
  }
}

BOOST_AUTO_TEST_CASE(certificate_checks_one_run_per_target_and_fails_on_a_split_run) {
  std::mt19937_64 g(testing::base_seed("spread_slots") + 3);
  const auto data = dataset_with_targets(g, 10, 3, 6);
  auto built = build_interpolating_transformer(data, 3);
  const std::size_t D = distinct_targets(data);
  BOOST_TEST(built.record.interpolation.runs.size() == D);
  Certificate cert;
  add_spread_slots_check(cert, data, built);
  BOOST_TEST_REQUIRE(cert.checks.size() == 1u);
  BOOST_TEST(cert.checks[0].lemma == "lem:spread-slots");
  BOOST_TEST(cert.checks[0].passed, cert.checks[0].detail);
  // Split a run of two or more clusters: the record now has D + 1 runs.
  auto& runs = built.record.interpolation.runs;
  const auto it = std::find_if(runs.begin(), runs.end(), [](const auto& r) { return r.size() >= 2; });
  BOOST_TEST_REQUIRE((it != runs.end()));
  std::vector<std::size_t> tail(it->begin() + 1, it->end());
  it->resize(1);
  runs.push_back(tail);
  Certificate tampered;
  add_spread_slots_check(tampered, data, built);
  BOOST_TEST(!tampered.checks[0].passed);
  const auto hard = certify_construction_hardmax(data, build_interpolating_transformer(data, 3), false).certificate;
  BOOST_TEST(hard.verified);
  const auto check = std::find_if(hard.checks.begin(), hard.checks.end(),
                                  [](const Check& c) { return c.lemma == "lem:spread-slots"; });
  BOOST_TEST_REQUIRE((check != hard.checks.end()));
  BOOST_TEST(check->passed, check->detail);
}

BOOST_AUTO_TEST_SUITE_END()
