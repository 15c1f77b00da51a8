#include <boost/test/unit_test.hpp>

#include <algorithm>
#include <cstdlib>
#include <iostream>
#include <random>
#include <string>
#include <vector>

#include <boost/multiprecision/mpfr.hpp>

#include "seqi/certification/bisection.hpp"
#include "seqi/certification/distance_enclosure.hpp"
#include "seqi/forward/general_attention.hpp"
#include "seqi/forward/general_feed_forward.hpp"
#include "seqi/certification/general_models.hpp"
#include "seqi/forward/softmax_weights.hpp"
#include "seqi/io/random_model.hpp"
#include "general_models_support.hpp"

BOOST_AUTO_TEST_SUITE(test_general_enclosures)

using namespace seqi;
using namespace seqi_test::general_models;

namespace {

FeedForward<Rational> random_ff(TestRng& r, int d) { return random_feed_forward(r, d); }

}  // namespace

// ---- Arb-style containment of every enclosure function ----------------------------------------

BOOST_AUTO_TEST_CASE(softmax_weight_enclosures_contain_the_true_weights) {
  TestRng r{{std::mt19937_64(base_seed("softmax_weights"))}};
  for (int trial = 0; trial < 300; ++trial) {
    const auto n = static_cast<std::size_t>(r.integer(1, 16));
    const Rational tau = q(r.integer(1, 100), r.integer(1, 1000));
    std::vector<Rational> s;
    for (std::size_t l = 0; l < n; ++l) s.push_back(r.small(16) * r.integer(1, 4));
    const auto w = softmax_weights(s, tau, 64);
    Hp z = 0;
    for (const auto& sl : s) z += exp(hp(sl) / hp(tau));
    for (std::size_t l = 0; l < n; ++l)
      BOOST_TEST(contains_hp(w[l], exp(hp(s[l]) / hp(tau)) / z), "trial " << trial << " l " << l);
    // interval scores: a random point inside each gives weights inside
    std::vector<Interval> si;
    for (const auto& sl : s) si.push_back(Interval::hull(sl, sl + q(r.integer(0, 5), 64), 64));
    const auto wi = softmax_weights(si, tau);
    std::vector<Rational> pick;
    for (const auto& x : si) pick.push_back(r.inside(x));
    Hp zp = 0;
    for (const auto& p : pick) zp += exp(hp(p) / hp(tau));
    for (std::size_t l = 0; l < n; ++l) BOOST_TEST(contains_hp(wi[l], exp(hp(pick[l]) / hp(tau)) / zp));
  }
  BOOST_TEST(!exact_softmax_weights({q(1), q(2)}));
  BOOST_TEST((*exact_softmax_weights({q(3, 2), q(3, 2), q(3, 2)}))[1] == q(1, 3));
}

BOOST_AUTO_TEST_CASE(box_and_affine_enclosures_contain_exact_points) {
  TestRng r{{std::mt19937_64(base_seed("boxes"))}};
  for (int trial = 0; trial < 200; ++trial) {
    const int d = static_cast<int>(r.integer(1, 8));
    const auto k = static_cast<std::size_t>(r.integer(0, 10));
    AffineEnclosure x{r.point(d, 16), {}, {}};
    for (std::size_t j = 0; j < k; ++j) {
      x.g.push_back(r.point(d, 8));
      const Rational lo = r.small(32);
      x.c.push_back(Interval::hull(lo, lo + q(r.integer(0, 8), 32), 64));
    }
    Point exact = x.p;
    std::vector<Rational> cs;
    for (std::size_t j = 0; j < k; ++j) cs.push_back(r.inside(x.c[j])), exact += x.g[j] * cs.back();
    const IntervalBox b = box_of(x, 64);
    for (int m = 0; m < d; ++m) BOOST_TEST(b[static_cast<std::size_t>(m)].contains(exact[m]));
    const Point a = r.point(d, 8);
    const Rational off = r.small(8);
    BOOST_TEST(reading_of(x, a, off, 64).contains(dot(a, exact) + off));
    AffineEnclosure limited = x;
    limit_generators(limited, 64);
    BOOST_TEST(limited.g.size() <= static_cast<std::size_t>(d));
    const IntervalBox bl = box_of(limited, 64);
    for (int m = 0; m < d; ++m) BOOST_TEST(bl[static_cast<std::size_t>(m)].contains(exact[m]));
    const AffineEnclosure fromb = enclosure_of_box(b);
    const IntervalBox bb = box_of(fromb, 64);
    for (int m = 0; m < d; ++m) BOOST_TEST(bb[static_cast<std::size_t>(m)].contains(exact[m]));
    // dot, sqr, hull, intersect
    BOOST_TEST(dot(a, b).contains(dot(a, exact)));
    const Interval s = sqr(b[0] - q(1, 3));
    BOOST_TEST(s.contains((exact[0] - q(1, 3)) * (exact[0] - q(1, 3))));
    BOOST_TEST(s.lower() >= 0);
    BOOST_TEST(hull(b[0], Interval(q(5), 64)).contains(exact[0]));
    BOOST_TEST(intersect(b[0], exact[0], exact[0] + 1)->contains(exact[0]));
    // the halfspace contraction keeps every point that satisfies the constraint
    if (k > 0) {
      std::vector<Rational> g;
      for (std::size_t j = 0; j < k; ++j) g.push_back(r.small(4));
      Rational val = 0;
      for (std::size_t j = 0; j < k; ++j) val += g[j] * cs[j];
      const Rational a0 = -val + r.small(8) * 0;  // the point sits on the hyperplane
      for (int sign : {1, -1}) {
        const auto c2 = contract_halfspace(x.c, a0, g, sign);
        BOOST_TEST_REQUIRE(c2.has_value());
        for (std::size_t j = 0; j < k; ++j) BOOST_TEST((*c2)[j].contains(cs[j]));
      }
    }
  }
}

BOOST_AUTO_TEST_CASE(attention_and_feed_forward_enclosures_contain_the_true_image) {
  TestRng r{{std::mt19937_64(base_seed("layers"))}};
  for (int trial = 0; trial < 120; ++trial) {
    const int d = static_cast<int>(r.integer(1, 6));
    const auto n = static_cast<std::size_t>(r.integer(1, 8));
    SelfAttention<Rational> sa;
    sa.rho = r.small(2);
    sa.A = random_structured(r, d, 3, 4);
    sa.V = random_structured(r, d, 3, 8);
    const Rational tau = q(r.integer(1, 8), 4);
    std::vector<AffineEnclosure> X;
    Sequence pick;
    const bool exact_inputs = trial % 3 == 0;
    for (std::size_t i = 0; i < n; ++i) {
      AffineEnclosure x{r.point(d, 4), {}, {}};
      Point p = x.p;
      if (!exact_inputs)
        for (int j = 0; j < 2; ++j) {
          x.g.push_back(r.point(d, 4));
          const Rational lo = r.small(64);
          x.c.push_back(Interval::hull(lo, lo + q(r.integer(0, 4), 64), 80));
          p += x.g.back() * r.inside(x.c.back());
        }
      X.push_back(x);
      pick.push_back(p);
    }
    const auto Y = softmax_attention_enclosure(sa, X, tau, 80);
    const auto ref = softmax_attention_hp(sa, to_hp(pick), tau);
    for (std::size_t i = 0; i < n; ++i) {
      const IntervalBox b = box_of(Y[i], 80);
      for (int m = 0; m < d; ++m)
        BOOST_TEST(contains_hp(b[static_cast<std::size_t>(m)], ref[i][static_cast<std::size_t>(m)]),
                   "trial " << trial << " token " << i << " coordinate " << m << ": "
                            << ref[i][static_cast<std::size_t>(m)].str(20) << " not in " << to_string(b[static_cast<std::size_t>(m)])
                            << " rho " << to_string(sa.rho) << " A.alpha " << to_string(sa.A.alpha) << " terms "
                            << sa.A.terms.size() << " V.alpha " << to_string(sa.V.alpha) << " terms " << sa.V.terms.size()
                            << " n " << n << " d " << d);
    }
    // feed-forward on each enclosure, with and without branching
    const FeedForward<Rational> ff = random_ff(r, d);
    for (std::size_t i = 0; i < n; ++i)
      for (std::size_t limit : {std::size_t{0}, std::size_t{4}}) {
        const auto f = feed_forward_enclosure(ff, X[i], 80, limit);
        const Point exact = ff.apply(pick[i]);
        const IntervalBox b = box_of(f.y, 80);
        for (int m = 0; m < d; ++m) BOOST_TEST(b[static_cast<std::size_t>(m)].contains(exact[m]));
        if (X[i].is_exact()) BOOST_TEST((f.y.is_exact() && equal_points(f.y.p, exact)));
      }
  }
}

BOOST_AUTO_TEST_CASE(distance_enclosure_contains_the_exact_distance) {
  TestRng r{{std::mt19937_64(base_seed("distance"))}};
  for (int trial = 0; trial < 150; ++trial) {
    const int d = static_cast<int>(r.integer(1, 5));
    const auto n = static_cast<std::size_t>(r.integer(1, 6)), m = static_cast<std::size_t>(r.integer(1, 6));
    std::vector<AffineEnclosure> O;
    Sequence exact, Y;
    for (std::size_t i = 0; i < n; ++i) {
      AffineEnclosure o{r.point(d, 4), {}, {}};
      if (r.integer(0, 1)) {
        o.g.push_back(r.point(d, 4));
        o.c.push_back(Interval::hull(q(0), q(r.integer(0, 3), 16), 64));
      }
      Point e = o.p;
      if (!o.is_exact()) e += o.g[0] * r.inside(o.c[0]);
      O.push_back(o);
      exact.push_back(e);
    }
    for (std::size_t k = 0; k < m; ++k) Y.push_back(r.point(d, 4));
    const auto e = distance_to_targets(O, Y, 64);
    Rational loss = 0, h = 0;
    for (const auto& o : exact) {
      Rational best = norm_sq(Point(o - Y[0]));
      for (const auto& y : Y) best = std::min(best, norm_sq(Point(o - y)));
      loss = std::max(loss, best);
    }
    h = loss;
    for (const auto& y : Y) {
      Rational best = norm_sq(Point(exact[0] - y));
      for (const auto& o : exact) best = std::min(best, norm_sq(Point(o - y)));
      h = std::max(h, best);
    }
    BOOST_TEST((e.loss_lo <= loss && loss <= e.loss_hi));
    BOOST_TEST((e.hausdorff_sq_lo <= h && h <= e.hausdorff_sq_hi));
  }
}

BOOST_AUTO_TEST_CASE(straddled_breakpoint_with_exact_image_stays_exact) {
  // x = p + c v, c in [-1, 1], a.v = 1; FF(x) = x - v relu(a.x - t) + v relu(t - a.x) with
  // t = a.p: both ReLUs straddle 0, but FF(x) = x - v (a.x - t) = p exactly on the whole segment.
  const Point p = (Point(2) << q(1, 3), q(2, 7)).finished(), v = (Point(2) << 1, 1).finished();
  const Point a = (Point(2) << q(1, 2), q(1, 2)).finished();
  AffineEnclosure x{p, {v}, {Interval::hull(q(-1), q(1), 64)}};
  FeedForward<Rational> ff;
  ff.U = (Mat<Rational>(2, 2) << a[0], a[1], -a[0], -a[1]).finished();
  ff.b = (Vec<Rational>(2) << -dot(a, p), dot(a, p)).finished();
  ff.W = (Mat<Rational>(2, 2) << -v[0], v[0], -v[1], v[1]).finished();
  const auto f = feed_forward_enclosure(ff, x, 64, 4);
  BOOST_TEST(f.undecided_units == 2u);
  BOOST_TEST_REQUIRE(f.y.is_exact());
  BOOST_TEST(equal_points(f.y.p, p));
  // without branching the interval ReLU cannot see it: an enclosure, still containing p
  const auto g = feed_forward_enclosure(ff, x, 64, 0);
  BOOST_TEST(!g.y.is_exact());
  BOOST_TEST(g.interval_units == 2u);
}

BOOST_AUTO_TEST_CASE(union_of_distance_enclosures_is_endpointwise) {
  DistanceEnclosure a{q(1, 10), q(3, 10), q(1, 20), q(2, 10), "token 1", 0};
  DistanceEnclosure b{q(2, 10), q(5, 10), q(1, 30), q(1, 10), "token 2", 1};
  const DistanceEnclosure u = union_of(a, b);
  BOOST_TEST(u.hausdorff_sq_lo == q(1, 10));
  BOOST_TEST(u.hausdorff_sq_hi == q(5, 10));
  BOOST_TEST(u.loss_lo == q(1, 30));
  BOOST_TEST(u.loss_hi == q(2, 10));
  BOOST_TEST(u.witness == "token 1");  // the weaker lower bound's witness
  BOOST_TEST(u.widest_token == 1u);
}

BOOST_AUTO_TEST_SUITE_END()
