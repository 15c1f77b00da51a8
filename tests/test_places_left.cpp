#include <boost/test/unit_test.hpp>

#include <algorithm>
#include <random>
#include <string>

#include "seqi/certification/run_report.hpp"
#include "seqi/certification/construction_checks.hpp"
#include "seqi/construction/places_left.hpp"
#include "placement_oracles.hpp"
#include "seeded_oracles.hpp"

BOOST_AUTO_TEST_SUITE(test_places_left)

using namespace seqi;
using testing::classify_dataset;
using testing::every_later_hat_negative_on_every_place;
using testing::random_inputs;

// Placement reading with every place left of every shrunk token (lem:places-left in
// proofs/spread-slots.tex): the reading's defining inequality from the definition, every
// placement hat after the shrink layer inactive on every place (all pre-activations < 0,
// evaluated from the layer's own U and b), and the certificate's check failing on a moved place;
// for the one-arc places and for the axis places of classification data (every m_j = 1).

namespace {

// N sequences of m + 1 tokens in dimension d with m >= 3 distinct targets each (one-arc places,
// lem:grouped-places (3), since targets repeat across sequences).
Dataset one_arc_dataset(std::mt19937_64& g, std::size_t N, std::size_t m, int d) {
  Dataset data = random_inputs(g, "places-left", N, m + 1, d);
  for (auto& pair : data.pairs) {
    std::vector<long> used;
    while (pair.output.size() < m) {
      const long y = static_cast<long>(g() % (2 * m));
      if (std::find(used.begin(), used.end(), y) != used.end()) continue;
      used.push_back(y);
      Point t = Point::Zero(d);
      t[0] = Rational(y);
      t[1] = Rational(-y, 3);
      pair.output.push_back(t);
    }
  }
  return data;
}

// Every placement hat after the shrink layer is negative on every place (pre-activations from
// the layer's own U and b), the certificate's check passes and fails once a place is moved.
void check_every_later_hat_inactive_on_every_place(const Dataset& data, std::uint64_t seed) {
  const auto built = build_interpolating_transformer(data, seed, 1, {false});
  BOOST_TEST_REQUIRE(built.record.placement.places_left());
  BOOST_TEST(every_later_hat_negative_on_every_place(built) == data.sum_m());
  Certificate cert;
  add_places_left_check(cert, built);
  BOOST_TEST_REQUIRE(cert.checks.size() == 1u);
  // Axis places whose gap draw won share one reading instead (lem:gap-places, test_gap_places).
  BOOST_TEST(cert.checks[0].lemma == (built.record.placement.split ? "lem:gap-places" : "lem:places-left"));
  BOOST_TEST(cert.checks[0].passed, cert.checks[0].detail);
  const auto hard = certify_construction_hardmax(data, built, false).certificate;
  BOOST_TEST(hard.verified);
  // Tampered record: a place far along the reading fails the check.
  auto moved = built;
  moved.record.placement.placed[0][0] = moved.record.placement.reading * 1000;
  Certificate tampered, tampered3;
  add_places_left_check(tampered, moved);
  BOOST_TEST(!tampered.checks[0].passed);
  // On 3 threads: the same verdict and the same first failing block.
  add_places_left_check(tampered3, moved, 3);
  BOOST_TEST(tampered3.checks[0].detail == tampered.checks[0].detail);
  Certificate cert3;
  add_places_left_check(cert3, built, 3);
  BOOST_TEST(cert3.checks[0].detail == cert.checks[0].detail);
}

}  // namespace

BOOST_AUTO_TEST_CASE(reading_puts_every_place_below_every_shrunk_token) {
  std::mt19937_64 g(testing::base_seed("places_left"));
  std::uniform_int_distribution<long> c(-50, 50);
  for (int trial = 0; trial < 30; ++trial) {
    const int d = 2 + trial % 5;
    // Places of lem:grouped-places (3): rho = 7 circle points at t in [5/16, 1/2] and R e1, R in [10.2, 18.2].
    std::vector<Point> places;
    for (int k = 0; k < 6; ++k) {
      const Rational t = Rational(5, 16) + Rational(3 * k, 16 * 5);
      Point p = Point::Zero(d);
      p[0] = 7 * (t * t - 1) / (t * t + 1);
      p[1] = 7 * 2 * t / (t * t + 1);
      places.push_back(p);
      Point q = Point::Zero(d);
      q[0] = 7 * (t * t + 8 * t - 1) / (t * t + 1);
      places.push_back(q);
    }
    std::vector<Point> tokens;
    Rational m2 = 0;
    for (int i = 0; i < 80; ++i) {  // more than one chunk on 3 threads
      Point x(d);
      for (int k = 0; k < d; ++k) x[k] = Rational(c(g), 1 + static_cast<long>(g() % 7));
      m2 = std::max(m2, norm_sq(x));
      tokens.push_back(x);
    }
    Rational eps = 1;  // eps^2 max |x|^2 <= 1 (lem:shrink)
    while (eps * eps * m2 > 1) eps /= 2;
    Point drawn(d);
    for (int k = 0; k < d; ++k) drawn[k] = Rational(c(g), 64);
    if (drawn.isZero()) drawn[0] = 1;
    Point C_e1 = Point::Zero(d);
    C_e1[0] = 4;
    const auto along = [&](const Point& dir) {
      std::vector<Rational> t;
      for (const auto& x : tokens) t.push_back(dot(dir, x));
      return t;
    };
    const auto r = reading_with_places_left(drawn, places, along, eps, C_e1);
    BOOST_TEST_REQUIRE(r.has_value());
    // On 3 threads: the same reading, and the token readings r.x from the definition.
    std::vector<Rational> t;
    const auto r3 = reading_with_places_left(drawn, places, along, eps, C_e1, 3, &t);
    BOOST_TEST_REQUIRE(r3.has_value());
    BOOST_TEST(equal_points(*r3, *r));
    BOOST_TEST_REQUIRE(t.size() == tokens.size());
    for (std::size_t i = 0; i < tokens.size(); ++i) BOOST_TEST(t[i] == dot(*r, tokens[i]));
    Rational top = dot(*r, places[0]);
    for (const auto& p : places) top = std::max(top, dot(*r, p));
    for (const auto& x : tokens) BOOST_TEST(top < dot(*r, Point(x * eps + C_e1)));
    // r = n + 2^-k drawn with k >= 1.
    Point n = Point::Zero(d);
    n[0] = Rational(-31, 128);
    n[1] = Rational(-31, 32);
    const Point diff = *r - n;
    Eigen::Index i = 0;
    while (drawn[i] == 0) ++i;
    const Rational s = diff[i] / drawn[i];
    BOOST_TEST(equal_points(diff, Point(drawn * s)));
    BOOST_TEST((s > 0 && s <= Rational(1, 2)));
    BOOST_TEST(numerator(s) == 1);  // a power of two
  }
}

BOOST_AUTO_TEST_CASE(every_later_placement_hat_is_inactive_on_every_place) {
  std::mt19937_64 g(testing::base_seed("places_left") + 1);
  for (int trial = 0; trial < 3; ++trial) {
    const auto data = one_arc_dataset(g, 8 + 4 * static_cast<std::size_t>(trial), 3, 2 + trial);
    BOOST_TEST_CONTEXT("one arc, trial " << trial) {
      check_every_later_hat_inactive_on_every_place(data, 11 + static_cast<std::uint64_t>(trial));
    }
  }
}

// Every m_j = 1 (lem:grouped-places (1)): the places read left of the shrunk tokens, or share a
// reading in a gap between them (lem:gap-places); either way every later hat is inactive on them.
BOOST_AUTO_TEST_CASE(classification_places_read_outside_every_later_window) {
  std::mt19937_64 g(testing::base_seed("places_left") + 2);
  for (int trial = 0; trial < 3; ++trial) {
    const auto data = classify_dataset(g, 10 + 7 * static_cast<std::size_t>(trial), 3 + static_cast<std::size_t>(trial),
                                       2 + trial, 3);
    BOOST_TEST_CONTEXT("classify, trial " << trial) {
      BOOST_TEST_REQUIRE(!build_interpolating_transformer(data, 5, 1, {false}).record.placement.collapse.has_value());
      check_every_later_hat_inactive_on_every_place(data, 5 + static_cast<std::uint64_t>(trial));
    }
  }
}

// Per-sequence circles (lem:grouped-places (2)): no claim, no check.
BOOST_AUTO_TEST_CASE(per_sequence_circles_get_no_places_left_check) {
  std::mt19937_64 g(testing::base_seed("places_left") + 3);
  auto data = classify_dataset(g, 6, 4, 3, 2);
  for (std::size_t j = 0; j < data.pairs.size(); ++j) {
    Sequence ys = data.pairs[j].output.points();
    ys[0][1] = Rational(static_cast<long>(j));
    data.pairs[j].output = TokenSequence(ys);
  }
  Point y = Point::Zero(3);
  y[2] = 5;
  data.pairs[0].output.push_back(y);  // m_1 = 2, distinct targets, sum(m) - D = 0: case (2)
  const auto built = build_interpolating_transformer(data, 3, 1, {false});
  BOOST_TEST_REQUIRE(!built.record.placement.collapse.has_value());
  BOOST_TEST(!built.record.placement.places_left());
  Certificate cert;
  add_places_left_check(cert, built);
  BOOST_TEST(cert.checks.empty());
}

BOOST_AUTO_TEST_SUITE_END()
