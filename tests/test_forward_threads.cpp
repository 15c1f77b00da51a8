// The exact forward pass's feed-forward layers on several threads: the token state,
// the reading index and the stats after every block equal those of one thread and of the
// dense per-sequence forward pass; the first failing token (throwing or declining) is the one
// a single thread reports; the weight conditioning and the placement checks do not depend on
// the thread count.
#include <boost/test/unit_test.hpp>

#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "seeded_oracles.hpp"
#include "seqi/certification/conditioning.hpp"
#include "seqi/construction/construction.hpp"
#include "seqi/core/rng.hpp"
#include "seqi/forward/exact_forward.hpp"
#include "seqi/forward/sparse_feed_forward.hpp"
#include "seqi/io/random_dataset.hpp"
#include "seqi/core/point_groups.hpp"
#include "seqi/numbers/point_set.hpp"

BOOST_AUTO_TEST_SUITE(test_forward_threads)

using namespace seqi;

namespace {

Dataset small_random_data(std::uint64_t seed, std::size_t N) {
  RandomDatasetSpec spec;
  spec.N = N;
  spec.n_max = 12;
  spec.m_max = 3;
  spec.d = 3;
  spec.max_denominator = 4;
  spec.share_probability = 0.3;
  return random_dataset(spec, seed);
}

bool same_state(const TokenState& a, const TokenState& b) {
  if (a.begin != b.begin || a.tokens.size() != b.tokens.size()) return false;
  for (std::size_t i = 0; i < a.tokens.size(); ++i)
    if (!equal_points(a.tokens[i], b.tokens[i])) return false;
  return true;
}

bool same_stats(const ForwardStats& a, const ForwardStats& b) {
  return a.ff_tokens_evaluated == b.ff_tokens_evaluated && a.ff_sparse_layers == b.ff_sparse_layers &&
         a.ff_dense_layers == b.ff_dense_layers && a.attention_layers_skipped == b.attention_layers_skipped &&
         a.index_rebuilds == b.index_rebuilds;
}

// Points on a line through the origin along e1 (readings i mod 7 along e1), many repeated.
std::vector<Point> line_points(std::size_t n) {
  std::vector<Point> pts;
  for (std::size_t i = 0; i < n; ++i) {
    Point x = Point::Zero(2);
    x[0] = Rational(static_cast<long>(i % 7), 3);
    x[1] = Rational(static_cast<long>(i % 2));
    pts.push_back(x);
  }
  return pts;
}

OneDirectionForm e1_form(bool identity_outside) {
  OneDirectionForm f;
  f.r = Point::Zero(2);
  f.r[0] = 1;
  f.lo = Rational(1, 2);
  f.hi = Rational(3, 2);
  f.identity_outside = identity_outside;
  f.has_breakpoint = true;
  return f;
}

const auto e1_reading = [](const Point& x, const Point& r) {
  Rational t = dot(r, x);
  return std::pair{t, t};
};

}  // namespace

BOOST_AUTO_TEST_CASE(the_exact_pass_is_the_same_on_1_2_and_3_threads_after_every_block) {
  const std::uint64_t seed = testing::base_seed("forward_threads");
  for (std::uint64_t k = 0; k < 3; ++k) {
    Dataset data = small_random_data(seed + k, 30);
    BOOST_TEST_CONTEXT("seed " << seed + k) {
      const Construction built = build_interpolating_transformer(data, seed + k, 1, {false});
      std::vector<ExactForward> passes;
      for (unsigned threads : {1u, 2u, 3u}) passes.emplace_back(inputs_of(data), threads);
      for (std::size_t b = 0; b < built.model.blocks.size(); ++b) {
        for (auto& p : passes) p.apply_block(built.model.blocks[b]);
        for (std::size_t t = 1; t < passes.size(); ++t) {
          BOOST_TEST_REQUIRE(same_state(passes[0].state(), passes[t].state()), "block " << b + 1 << " pass " << t);
          BOOST_TEST(same_stats(passes[0].stats(), passes[t].stats()));
          BOOST_TEST((passes[0].last_relative_window() == passes[t].last_relative_window()));
          BOOST_TEST((passes[0].last_centre_margin() == passes[t].last_centre_margin()));
        }
      }
      BOOST_TEST(passes[0].stats().ff_sparse_layers > 0u);
      // Oracle: every sequence through the dense forward pass, one token list at a time.
      const auto& s = passes[2].state();
      for (std::size_t j = 0; j < data.pairs.size(); ++j) {
        const auto dense = forward_dense(built.model, data.pairs[j].input.points());
        for (std::size_t i = 0; i < dense.size(); ++i)
          BOOST_TEST_REQUIRE(equal_points(dense[i], s.tokens[s.begin[j] + i]), "sequence " << j + 1 << " token " << i + 1);
      }
    }
  }
}

BOOST_AUTO_TEST_CASE(the_first_throwing_token_in_touched_order_is_reported_for_any_thread_count) {
  // The sparse layer touches the readings inside (1/2, 3/2): 2/3 (i = 2 mod 7) and 1 (i = 3 mod 7),
  // in reading order, i ascending within a reading; neighbours differ in x[1], so each is
  // computed. The image throws on 900 (4 mod 7: untouched), 129 (3 mod 7) and 401 (2 mod 7):
  // 401 comes first in that order, though 129 has the smaller index.
  for (unsigned threads : {1u, 2u, 3u, 8u}) {
    std::vector<Point> tokens = line_points(1000);
    ReadingIndex index;
    std::string caught;
    std::vector<std::size_t> imaged;
    try {
      apply_feed_forward_sparsely(
          tokens, index, std::optional(e1_form(true)), e1_reading, [](const Point& a, const Point& b) { return a == b; },
          [&](const Point& x, std::size_t i) -> std::optional<Point> {
            if (i == 900 || i == 401 || i == 129) throw std::runtime_error("token " + std::to_string(i));
            return Point(x * 2);
          },
          threads);
    } catch (const std::runtime_error& e) {
      caught = e.what();
    }
    BOOST_TEST(caught == "token 401", "threads " << threads);
  }
}

BOOST_AUTO_TEST_CASE(a_declined_image_reports_the_same_token_and_count_for_any_thread_count) {
  for (unsigned threads : {1u, 2u, 3u}) {
    std::vector<Point> tokens = line_points(700);
    ReadingIndex index;
    const auto step = apply_feed_forward_sparsely(
        tokens, index, std::optional(e1_form(false)), e1_reading, [](const Point& a, const Point& b) { return a == b; },
        [&](const Point& x, std::size_t i) -> std::optional<Point> {
          if (i == 303 || i == 650) return std::nullopt;  // readings 2/3 (303 = 2 mod 7) and 6/3
          return Point(x * 3);
        },
        threads);
    BOOST_TEST_REQUIRE(step.failed_token.has_value());
    // Dense layer: every token in reading order (i mod 7, then i), each computed (neighbours
    // differ in x[1]). 303 = 2 mod 7 declines first: after the 100 tokens of 0 mod 7, the 100
    // of 1 mod 7 and the 43 of 2 mod 7 below 303, all of which hold their image.
    BOOST_TEST(*step.failed_token == 303u, "threads " << threads);
    BOOST_TEST(step.touched == 243u, "threads " << threads);
    BOOST_TEST(!index.valid_for(e1_form(false).r));
    BOOST_TEST(equal_points(tokens[296], Point(line_points(297)[296] * 3)));
    BOOST_TEST(equal_points(tokens[303], line_points(304)[303]));
    BOOST_TEST(!step.sparse);
  }
}

BOOST_AUTO_TEST_CASE(weight_conditioning_does_not_depend_on_the_thread_count) {
  const std::uint64_t seed = testing::base_seed("forward_threads");
  Dataset data = small_random_data(seed + 7, 20);
  const Construction built = build_interpolating_transformer(data, seed + 7, 1, {false});
  const auto one = weight_conditioning(built.model, built.record.collapse_block, Execution{nullptr, 1, nullptr});
  for (unsigned threads : {2u, 3u}) {
    const auto many =
        weight_conditioning(built.model, built.record.collapse_block, Execution{nullptr, threads, nullptr});
    BOOST_TEST(one.norm_sq == many.norm_sq);
    BOOST_TEST(one.max_abs_weight == many.max_abs_weight);
    BOOST_TEST_REQUIRE(one.phases.size() == many.phases.size());
    for (std::size_t p = 0; p < one.phases.size(); ++p) {
      BOOST_TEST(one.phases[p].phase == many.phases[p].phase);
      BOOST_TEST(one.phases[p].norm_sq == many.phases[p].norm_sq);
      BOOST_TEST(one.phases[p].max_abs_weight == many.phases[p].max_abs_weight);
    }
  }
  // Oracle: ||theta||^2 is the sum of every block's stored squared norm.
  Rational total = 0;
  for (const auto& b : built.model.blocks) total += b.sa.stored_norm_sq() + b.ff.stored_norm_sq();
  BOOST_TEST(one.norm_sq == total);
}

BOOST_AUTO_TEST_CASE(the_first_equal_point_group_is_the_pair_the_lexicographic_search_finds) {
  // add_placement_checks names the first two indices of the first group (hashing) as the
  // coinciding pair; the lexicographic search by sorting finds the same pair.
  Rng rng(testing::base_seed("forward_threads") + 11);
  for (int trial = 0; trial < 50; ++trial) {
    std::vector<Point> pts;
    for (int i = 0; i < 40; ++i) {
      Point x(3);
      for (int c = 0; c < 3; ++c) x[c] = Rational(rng.integer_in(trial % 5 + 1), Integer(2));
      pts.push_back(x);
    }
    const auto groups = equal_point_groups(pts);
    BOOST_TEST((equal_point_groups(pts, 3) == groups), "trial " << trial);  // any thread count
    const auto pair = find_equal_pair(pts);
    BOOST_TEST_REQUIRE(groups.empty() == !pair.has_value());
    if (pair) BOOST_TEST((std::pair{groups.front()[0], groups.front()[1]} == *pair), "trial " << trial);
  }
}

BOOST_AUTO_TEST_SUITE_END()
