#include <boost/test/unit_test.hpp>

#include <algorithm>
#include <numeric>
#include <random>
#include <string>

#include "seqi/certification/run_report.hpp"
#include "seqi/certification/construction_checks.hpp"
#include "seqi/construction/gap_places.hpp"
#include "seqi/construction/hats.hpp"
#include "placement_oracles.hpp"
#include "seeded_oracles.hpp"

BOOST_AUTO_TEST_SUITE(test_gap_places)

using namespace seqi;
using testing::classify_dataset;
using testing::every_later_hat_negative_on_every_place;

// Places in a reading gap (lem:gap-places in proofs/gap-places.tex): the split reading from its
// definition (a gap of the sorted readings, checked against a full sort), the dyadic of fewest
// bits by its defining property, the places on the split, the two-sided hat order, and built
// classification transformers: every place reads the split, every later hat is inactive on every
// place, the certificate's check passes, and fails once the places are moved into a window.

namespace {

Rational random_rational(std::mt19937_64& g, long range, long den) {
  std::uniform_int_distribution<long> num(-range, range);
  return Rational(num(g), 1 + static_cast<long>(g() % static_cast<std::uint64_t>(den)));
}

// The least k with x 2^k an integer (k may be negative); x != 0.
long level(const Rational& x) {
  long k = 0;
  Rational y = x;
  while (denominator(y) != 1) y *= 2, ++k;
  while (numerator(y) % 2 == 0) y /= 2, --k;
  return k;
}

// Some multiple of 2^-k lies strictly inside (a, b).
bool multiple_inside(const Rational& a, const Rational& b, long k) {
  const Rational unit = k >= 0 ? Rational(1) / Rational(Integer(1) << k) : Rational(Integer(1) << -k);
  const Rational q = a / unit;
  Integer m = numerator(q) / denominator(q);  // truncation; then the least integer above q
  while (Rational(m) <= q) m += 1;
  while (Rational(m - 1) > q) m -= 1;
  return Rational(m) * unit < b;
}

}  // namespace

BOOST_AUTO_TEST_CASE(shortest_dyadic_has_fewest_bits_inside_the_interval) {
  std::mt19937_64 g(testing::base_seed("gap_places"));
  for (int trial = 0; trial < 2000; ++trial) {
    Rational a = random_rational(g, 2000, trial % 3 == 0 ? 1000000 : 40);
    Rational b = a + Rational(1 + static_cast<long>(g() % 1000), 1 + static_cast<long>(g() % 100000));
    if (trial % 7 == 0) b = a + Rational(1, Integer(1) << 70);  // narrow
    BOOST_TEST_CONTEXT("(" << a << ", " << b << ")") {
      const Rational x = shortest_dyadic_between(a, b);
      BOOST_TEST((a < x && x < b));
      if (a < 0 && b > 0) {
        BOOST_TEST(x == 0);
      } else {
        BOOST_TEST_REQUIRE(x != 0);
        BOOST_TEST(!multiple_inside(a, b, level(x) - 1));  // one level up: nothing inside
      }
    }
  }
}

BOOST_AUTO_TEST_CASE(split_reading_lies_in_the_widest_middle_gap) {
  std::mt19937_64 g(testing::base_seed("gap_places") + 1);
  for (int trial = 0; trial < 400; ++trial) {
    const std::size_t n = 1 + g() % 60;
    std::vector<Rational> t;
    const long den = trial % 4 == 0 ? 1 : 50;  // den 1: many equal readings
    const long spread = trial % 5 == 0 ? 3 : 60;
    for (std::size_t i = 0; i < n; ++i) t.push_back(random_rational(g, spread, den) / 20);
    if (trial % 9 == 0) std::fill(t.begin(), t.end(), t[0]);  // every reading equal
    const Rational bound = trial % 6 == 0 ? Rational(1, 50) : Rational(1);
    BOOST_TEST_CONTEXT("trial " << trial << ", n " << n) {
      const auto pi = split_reading(t, bound);
      BOOST_TEST_REQUIRE(pi.has_value());
      BOOST_TEST((-bound < *pi && *pi < bound));
      BOOST_TEST((std::find(t.begin(), t.end(), *pi) == t.end()));
      // The oracle: every gap of the fully sorted readings, clipped to (-bound, bound).
      std::vector<Rational> s = t;
      std::sort(s.begin(), s.end());
      const auto clip_lo = [&](std::size_t k) { return k == 0 ? -bound : std::max(s[k - 1], -bound); };
      const auto clip_hi = [&](std::size_t k) { return k == n ? bound : std::min(s[k], bound); };
      const std::size_t lo = 2 * n / 5, hi = std::min(n, std::max(lo + 2, (3 * n + 4) / 5));
      std::optional<std::size_t> want;  // gap k lies between sorted positions k - 1 and k
      for (std::size_t k = lo + 1; k < hi; ++k)
        if (clip_lo(k) < clip_hi(k) && (!want || clip_hi(k) - clip_lo(k) > clip_hi(*want) - clip_lo(*want))) want = k;
      if (!want) {
        std::size_t best = 0;
        for (std::size_t k = 0; k <= n; ++k) {
          const std::size_t dist = 2 * k > n ? 2 * k - n : n - 2 * k;
          if (clip_lo(k) < clip_hi(k) && (!want || dist < best)) want = k, best = dist;
        }
      }
      BOOST_TEST_REQUIRE(want.has_value());
      const Rational a = clip_lo(*want), b = clip_hi(*want), q = (b - a) / 4;
      BOOST_TEST((a + q < *pi && *pi < b - q), "pi " << *pi << " not in the middle half of (" << a << ", " << b << ")");
      BOOST_TEST(*pi == shortest_dyadic_between(a + q, b - q));
    }
  }
  BOOST_TEST(!split_reading({}, 1).has_value());
  BOOST_TEST(!split_reading({Rational(0)}, 0).has_value());
}

BOOST_AUTO_TEST_CASE(places_on_the_split_read_it_and_keep_their_first_coordinate) {
  std::mt19937_64 g(testing::base_seed("gap_places") + 2);
  for (int trial = 0; trial < 50; ++trial) {
    const int d = 2 + trial % 6;
    Point w(d);
    for (int k = 0; k < d; ++k) w[k] = random_rational(g, 64, 1) / 64;
    const Point r = gap_reading(w);
    BOOST_TEST(r[1] == -1);
    BOOST_TEST(r[0] == w[0] / 256);
    std::vector<Point> axis;
    for (int j = 0; j < 5; ++j) {
      Point p = Point::Zero(d);
      p[0] = 9 + Rational(j * 17, 10);
      axis.push_back(p);
    }
    const Rational pi = random_rational(g, 99, 100) / 100;  // |pi| < 1
    const auto placed = places_reading(axis, r, pi);
    BOOST_TEST_REQUIRE(placed.size() == axis.size());
    for (std::size_t j = 0; j < axis.size(); ++j) {
      BOOST_TEST(dot(r, placed[j]) == pi);
      BOOST_TEST(placed[j][0] == axis[j][0]);
      BOOST_TEST(abs(placed[j][1]) < 2);  // lem:gap-places (1)
      for (int k = 2; k < d; ++k) BOOST_TEST(placed[j][k] == 0);
    }
  }
}

BOOST_AUTO_TEST_CASE(hat_order_rises_above_the_split_then_mirrors_below) {
  std::mt19937_64 g(testing::base_seed("gap_places") + 3);
  for (int trial = 0; trial < 100; ++trial) {
    const std::size_t S = 1 + g() % 30;
    std::vector<Rational> t;
    for (std::size_t k = 0; k < S; ++k) t.push_back(Rational(static_cast<long>(k) * 2 + 1));  // odd
    std::shuffle(t.begin(), t.end(), g);
    std::vector<std::size_t> decreasing(S);
    std::iota(decreasing.begin(), decreasing.end(), std::size_t{0});
    std::sort(decreasing.begin(), decreasing.end(), [&](std::size_t x, std::size_t y) { return t[x] > t[y]; });
    const Rational pi = Rational(2 * static_cast<long>(g() % (S + 1)));  // even: no reading
    const GapOrder o = gap_hat_order(decreasing, t, pi);
    BOOST_TEST_REQUIRE(o.order.size() == S);
    BOOST_TEST(o.order[0] == decreasing[0]);
    BOOST_TEST(!o.mirrored[decreasing[0]]);
    std::size_t s = 1;
    for (; s < S && t[o.order[s]] > pi; ++s) {
      BOOST_TEST(!o.mirrored[o.order[s]]);
      if (s > 1) BOOST_TEST(t[o.order[s]] < t[o.order[s - 1]]);
    }
    for (std::size_t first_below = s; s < S; ++s) {
      BOOST_TEST(t[o.order[s]] < pi);
      BOOST_TEST(o.mirrored[o.order[s]]);
      if (s > first_below) BOOST_TEST(t[o.order[s]] > t[o.order[s - 1]]);
    }
    std::vector<std::size_t> sorted = o.order;
    std::sort(sorted.begin(), sorted.end());
    for (std::size_t k = 0; k < S; ++k) BOOST_TEST(sorted[k] == k);
  }
}

// Built classification transformers whose gap draw won: every place reads the split, both kinds
// of hat occur, every later hat is inactive on every place (pre-activations from the layer's own
// U and b), verified; the check fails once every place is moved onto the centre reading of the first
// hat after the shrink layer.
BOOST_AUTO_TEST_CASE(built_gap_places_are_outside_every_later_window) {
  std::mt19937_64 g(testing::base_seed("gap_places") + 4);
  int with_split = 0;
  for (int trial = 0; trial < 6; ++trial) {
    const auto data = classify_dataset(g, 12 + 5 * static_cast<std::size_t>(trial), 3 + static_cast<std::size_t>(trial % 3),
                                       2 + trial % 4, 3);
    const auto built = build_interpolating_transformer(data, 7 + static_cast<std::uint64_t>(trial), 1, {false});
    const auto& rec = built.record.placement;
    BOOST_TEST_REQUIRE(rec.axis_places());
    if (!rec.split) continue;  // the places-left draw was better conditioned (test_places_left)
    ++with_split;
    BOOST_TEST_CONTEXT("trial " << trial << ", split " << *rec.split) {
      for (const auto& placed : rec.placed)
        for (const auto& P : placed) BOOST_TEST(dot(rec.reading, P) == *rec.split);
      BOOST_TEST(every_later_hat_negative_on_every_place(built) == data.sum_m());
      std::size_t placement = 0, falling = 0;  // hats after the shrink layer whose rows point along -r
      for (const auto& block : built.model.blocks)
        if (block.phase == Phase::placement && placement++ > 0)
          falling += dot(Point(block.ff.U.row(0).transpose()), rec.reading) < 0 ? 1 : 0;
      Certificate cert;
      add_places_left_check(cert, built);
      BOOST_TEST_REQUIRE(cert.checks.size() == 1u);
      BOOST_TEST(cert.checks[0].lemma == "lem:gap-places");
      BOOST_TEST(cert.checks[0].passed, cert.checks[0].detail);
      BOOST_TEST(cert.checks[0].detail.find(std::to_string(falling) + " falling") != std::string::npos,
                 cert.checks[0].detail);
      BOOST_TEST(certify_construction_hardmax(data, built, false).certificate.verified);
      // Every place moved along e2 to read a hat's centre, a quarter or one and a half half-widths
      // off it (inside its window, or within one half-width of it on either side): the check
      // fails. For the first falling hat (the mirrored side of the check) and the first rising one.
      const auto& blocks = built.model.blocks;
      for (const bool want_falling : {true, false}) {
        for (std::size_t b = 1; b < blocks.size(); ++b) {
          const auto& ff = blocks[b].ff;
          if (blocks[b].phase != Phase::placement || ff.U.rows() != 3) continue;  // a hat (not the shrink layer)
          // Unit k is relu(s_k r.x + b_k) (rows s_k r): its breakpoint along r is -b_k / s_k.
          const auto slope = [&](Eigen::Index k) {
            return dot(Point(ff.U.row(k).transpose()), rec.reading) / norm_sq(rec.reading);
          };
          if (slope(1) == 0 || (slope(1) < 0) != want_falling) continue;
          const Rational centre = -ff.b[1] / slope(1);            // the middle unit's
          const Rational half = abs(-ff.b[0] / slope(0) - centre);  // an outer unit's is one half-width off
          for (const Rational& off : {Rational(0), half / 4, -half / 4, 3 * half / 2, -3 * half / 2}) {
            auto moved = built;
            for (auto& placed : moved.record.placement.placed)
              for (auto& P : placed) P[1] += dot(rec.reading, P) - (centre + off);  // r_2 = -1
            moved.record.placement.split = centre + off;
            Certificate tampered;
            add_places_left_check(tampered, moved);
            BOOST_TEST(!tampered.checks[0].passed, "offset " << off);
            BOOST_TEST(tampered.checks[0].detail.find("half-width") != std::string::npos, tampered.checks[0].detail);
          }
          break;
        }
      }
    }
  }
  BOOST_TEST(with_split > 0);
}

// The check at its margin, on one hat of half-width delta centred at reading t (hand-built): a
// place reading exactly 2 delta outside the window's centre on the inactive side passes, any
// nearer or on the active side fails; a falling hat is accepted only with a split reading.
BOOST_AUTO_TEST_CASE(check_holds_exactly_at_one_half_width_outside_the_window) {
  const int d = 3;
  Point w(d);
  w << Rational(1, 2), Rational(-1, 4), Rational(3, 8);
  const Point r = gap_reading(w);
  const Rational t(1, 3), delta(1, 64);
  Point D = Point::Zero(d);
  D[0] = 5;
  for (const bool falling : {false, true}) {
    Construction built;
    built.model.dimension = d;
    Block<Rational> hat{SelfAttention<Rational>::identity(),
                        falling ? hat_layer(Point(-r), -t, delta, D) : hat_layer(r, t, delta, D), Phase::placement};
    built.model.blocks.push_back(std::move(hat));
    auto& rec = built.record.placement;
    rec.reading = r;
    rec.R = {Rational(9)};
    rec.rho = {Rational(9)};
    rec.circle_t = {{}};
    BOOST_TEST_REQUIRE(rec.axis_places());
    const Rational inactive = falling ? Rational(1) : Rational(-1);  // the side of the window with every unit off
    // (offset from t in half-widths, passes)
    const std::vector<std::pair<Rational, bool>> cases{
        {2, true}, {3, true}, {Rational(199, 100), false}, {Rational(3, 2), false}, {1, false}, {0, false},
        {-1, false}, {-2, false}, {-3, false}};
    for (const auto& [k, passes] : cases) {
      const Rational pi = t + inactive * k * delta;
      Point P = Point::Zero(d);
      P[0] = 9;
      P[1] = dot(r, P) - pi;  // r_2 = -1: P reads pi
      BOOST_TEST_REQUIRE(dot(r, P) == pi);
      rec.placed = {{P}};
      BOOST_TEST_CONTEXT((falling ? "falling" : "rising") << " hat, place " << k << " half-widths out") {
        rec.split = pi;
        Certificate cert;
        add_places_left_check(cert, built);
        BOOST_TEST_REQUIRE(cert.checks.size() == 1u);
        BOOST_TEST(cert.checks[0].lemma == "lem:gap-places");
        BOOST_TEST(cert.checks[0].passed == passes, cert.checks[0].detail);
        if (passes)
          BOOST_TEST(cert.checks[0].detail.find(falling ? "0 hats rising, 1 falling" : "1 hats rising, 0 falling") !=
                     std::string::npos, cert.checks[0].detail);
        // Without a split reading only rising hats are accepted (lem:places-left).
        rec.split.reset();
        Certificate left;
        add_places_left_check(left, built);
        BOOST_TEST(left.checks[0].lemma == "lem:places-left");
        BOOST_TEST(left.checks[0].passed == (passes && !falling), left.checks[0].detail);
        // A split reading that some place does not read fails.
        rec.split = pi + 1;
        Certificate off;
        add_places_left_check(off, built);
        BOOST_TEST(!off.checks[0].passed);
        BOOST_TEST(off.checks[0].detail.find("split reading") != std::string::npos, off.checks[0].detail);
      }
    }
  }
}

// Tokens that differ only in their first coordinate: the gap reading's r_1 = w_1 / 256 still
// separates them (with r_1 = 0 no gap draw is valid, and the places-left draw would win).
BOOST_AUTO_TEST_CASE(tokens_differing_only_in_the_first_coordinate_are_still_separated) {
  for (const int d : {2, 3, 5}) {
    Dataset data;
    data.name = "first-coordinate-only";
    data.dimension = d;
    for (long j = 0; j < 6; ++j) {
      SequencePair pair;
      for (long i = 0; i < 3; ++i) {
        Point x = Point::Constant(d, Rational(1, 3));
        x[0] = Rational(3 * j + i, 7);
        pair.input.push_back(x);
      }
      Point y = Point::Zero(d);
      y[1] = Rational(j % 2);
      pair.output.push_back(y);
      data.pairs.push_back(std::move(pair));
    }
    BOOST_TEST_CONTEXT("d = " << d) {
      const auto built = build_interpolating_transformer(data, 5, 1, {false});
      BOOST_TEST(built.record.placement.axis_places());
      BOOST_TEST(built.record.placement.split.has_value());  // the gap draw is valid here, and wins
      BOOST_TEST(certify_construction_hardmax(data, built, false).certificate.verified);
      Certificate cert;
      add_places_left_check(cert, built);
      BOOST_TEST_REQUIRE(cert.checks.size() == 1u);
      BOOST_TEST(cert.checks[0].passed, cert.checks[0].detail);
    }
  }
}

BOOST_AUTO_TEST_SUITE_END()
