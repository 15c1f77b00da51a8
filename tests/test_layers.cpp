#include <boost/test/unit_test.hpp>

#include <cstdlib>
#include <initializer_list>
#include <iostream>
#include <random>
#include <string>

#include "seqi/numbers/interval.hpp"
#include "seqi/forward/carried_token.hpp"
#include "seqi/forward/exact_forward.hpp"
#include "seqi/certification/lemma_p.hpp"
#include "seqi/numbers/dyadic.hpp"
#include "seqi/forward/one_direction_ff.hpp"
#include "seqi/forward/pattern_image.hpp"
#include "seqi/construction/construction.hpp"
#include "seqi/construction/hats.hpp"
#include "seqi/io/random_dataset.hpp"
#include "layers_support.hpp"

BOOST_AUTO_TEST_SUITE(test_layers)

using namespace seqi;
using namespace seqi_test::layers;

// ---------------------------------------------------------------------------------------------
// Feed-forward and attention semantics
// ---------------------------------------------------------------------------------------------

BOOST_AUTO_TEST_CASE(feed_forward_hand_example) {
  // FF(x) = x/2 + W relu(U x + b), U = [[1,-1],[2,1]], b = (0,-3), W = [[1,0],[2,-1]].
  FeedForward<Rational> ff;
  ff.eta = q(1, 2);
  ff.U.edit().resize(2, 2);
  ff.U.edit() << 1, -1, 2, 1;
  ff.b = pt({0, -3});
  ff.W.edit().resize(2, 2);
  ff.W.edit() << 1, 0, 2, -1;
  BOOST_TEST(ff.width() == 2u);
  BOOST_TEST(ff.stored_scalars() == 1u + 4u + 2u + 4u);
  // Both units active: (1, 1/2) + 1*(1,2) + 2*(0,-1).
  CHECK_POINT(ff.apply(pt({2, 1})), pt({2, q(1, 2)}));
  // Both pre-activations exactly 0: relu(0) = 0, only eta*x remains.
  CHECK_POINT(ff.apply(pt({1, 1})), pt({q(1, 2), q(1, 2)}));
  // Unit 1 active (2/3), unit 2 inactive: (1/6,-1/6) + 2/3*(1,2).
  CHECK_POINT(ff.apply(pt({q(1, 3), q(-1, 3)})), pt({q(5, 6), q(7, 6)}));
  // Both inactive.
  CHECK_POINT(ff.apply(pt({-1, 1})), pt({q(-1, 2), q(1, 2)}));
}

BOOST_AUTO_TEST_CASE(structured_matrix_apply) {
  StructuredMatrix<Rational> M{2, {{pt({1, -1}), pt({0, 3})}}};  // 2I + (1,-1)(0,3)^T
  CHECK_POINT(M.apply(pt({1, 2})), pt({8, -2}));
  BOOST_TEST(M.stored_scalars(2) == 5u);
  BOOST_TEST(M.stored_norm_sq() == 4 + 2 + 9);
  BOOST_TEST(StructuredMatrix<Rational>::zero().is_zero());
  CHECK_POINT(StructuredMatrix<Rational>::scaled_identity(q(1, 3)).apply(pt({3, -6})), pt({1, -2}));
}

BOOST_AUTO_TEST_CASE(hardmax_tie_gives_exact_average_and_unique_argmax) {
  // A = e1 (1,1)^T: s_il = (x_i1 + x_i2) * x_l1. Tokens a=(3,0), b=(3,5), c=(1,-2).
  // a, b (positive q.x): best x_l1 = 3 is tied between a and b -> average (3, 5/2).
  // c (q.c = -1): best is min x_l1, uniquely c.
  SelfAttention<Rational> sa{q(1, 2), StructuredMatrix<Rational>::rank_one(pt({1, 0}), pt({1, 1})),
                             StructuredMatrix<Rational>::scaled_identity(1)};
  const TokenList<Rational> X{pt({3, 0}), pt({3, 5}), pt({1, -2})};
  const auto Y = apply_hardmax(sa, X);
  BOOST_TEST_REQUIRE(Y.size() == 3u);
  CHECK_POINT(Y[0], pt({q(9, 2), q(5, 2)}));
  CHECK_POINT(Y[1], pt({q(9, 2), 5}));
  CHECK_POINT(Y[2], pt({q(3, 2), -3}));
}

BOOST_AUTO_TEST_CASE(hardmax_structured_A_alpha_identity_plus_rank_one) {
  // A = I + e1 e2^T: A x = (x1 + x2, x2). Tokens a=(1,0), b=(0,1), c=(-1,1).
  // a: scores (1, 0, -1) -> a.  b: A b = (1,1), scores (1, 1, 0) -> tie a,b.
  // c: A c = (0,1), scores (0, 1, 1) -> tie b,c.  (With A = I alone, b would pick b only.)
  SelfAttention<Rational> sa{0, StructuredMatrix<Rational>{1, {{pt({1, 0}), pt({0, 1})}}},
                             StructuredMatrix<Rational>::scaled_identity(1)};
  const TokenList<Rational> X{pt({1, 0}), pt({0, 1}), pt({-1, 1})};
  const auto Y = apply_hardmax(sa, X);
  CHECK_POINT(Y[0], pt({1, 0}));
  CHECK_POINT(Y[1], pt({q(1, 2), q(1, 2)}));
  CHECK_POINT(Y[2], pt({q(-1, 2), 1}));

  // Same scores, V rank one (2,1)(1,-1)^T and rho = -1/3: y_i = -x_i/3 + (2,1) * ((1,-1).avg_i).
  sa.rho = q(-1, 3);
  sa.V = StructuredMatrix<Rational>::rank_one(pt({2, 1}), pt({1, -1}));
  const auto Z = apply_hardmax(sa, X);
  CHECK_POINT(Z[0], pt({q(-1, 3) + 2, 1}));
  CHECK_POINT(Z[1], pt({0, q(-1, 3)}));
  CHECK_POINT(Z[2], pt({q(1, 3) - 3, q(-1, 3) - q(3, 2)}));
}

BOOST_AUTO_TEST_CASE(hardmax_A_zero_is_mean_attention) {
  const TokenList<Rational> X{pt({1, 0}), pt({0, 1}), pt({-1, 1})};  // mean (0, 2/3)
  SelfAttention<Rational> sa{3, StructuredMatrix<Rational>::zero(),
                             StructuredMatrix<Rational>::rank_one(pt({1, 2}), pt({1, 1}))};
  BOOST_TEST(sa.is_mean_shift());
  const Point shift = pt({q(2, 3), q(4, 3)});  // V mean = (1,2) * 2/3
  const auto Y = apply_hardmax(sa, X);
  for (std::size_t i = 0; i < X.size(); ++i) CHECK_POINT(Y[i], Point(X[i] * Rational(3) + shift));
  // An A that is zero as a matrix but not stored as zero takes the generic path: all scores
  // tie, so the average over everything is again the exact mean.
  SelfAttention<Rational> generic = sa;
  generic.A = StructuredMatrix<Rational>::rank_one(pt({0, 0}), pt({5, -7}));
  BOOST_TEST(!generic.is_mean_shift());
  const auto Z = apply_hardmax(generic, X);
  for (std::size_t i = 0; i < X.size(); ++i) CHECK_POINT(Z[i], Y[i]);
  // Single-token sequence: its own mean.
  const auto W = apply_hardmax(sa, TokenList<Rational>{pt({q(1, 7), 2})});
  CHECK_POINT(W[0], Point(pt({q(3, 7), 6}) + pt({q(15, 7), q(30, 7)})));
}

BOOST_AUTO_TEST_CASE(hardmax_identity_attention_returns_input) {
  const TokenList<Rational> X{pt({q(1, 3), 0}), pt({0, q(-5, 2)}), pt({7, 1})};
  auto id = SelfAttention<Rational>::identity();
  BOOST_TEST(id.is_identity());
  auto Y = apply_hardmax(id, X);
  for (std::size_t i = 0; i < X.size(); ++i) CHECK_POINT(Y[i], X[i]);
  // rho = 1, V = 0 with a nonzero A is still the identity.
  SelfAttention<Rational> sa{1, StructuredMatrix<Rational>{2, {{pt({1, 1}), pt({1, -1})}}},
                             StructuredMatrix<Rational>::zero()};
  BOOST_TEST(sa.is_identity());
  Y = apply_hardmax(sa, X);
  for (std::size_t i = 0; i < X.size(); ++i) CHECK_POINT(Y[i], X[i]);
}

// ---------------------------------------------------------------------------------------------
// Hats (construction/hats.hpp)
// ---------------------------------------------------------------------------------------------

BOOST_AUTO_TEST_CASE(hat_layer_moves_exactly_one_reading) {
  const Point r = pt({1, 2});
  const Point qpt = pt({1, 1});  // t_q = 3
  const Rational t_q = dot(r, qpt), delta = q(1, 2);
  const Point D = pt({-2, q(5, 3)});
  const auto ff = hat_layer(r, t_q, delta, D);
  BOOST_TEST(ff.width() == 3u);
  BOOST_TEST(ff.eta == 1);
  CHECK_POINT(ff.apply(qpt), Point(qpt + D));
  CHECK_POINT(ff.apply(pt({3, 0})), Point(pt({3, 0}) + D));  // another point with reading t_q
  // |r.x - t_q| >= delta: unchanged, including exactly at distance delta.
  for (const Point& x : {pt({q(3, 2), 1}), pt({q(1, 2), 1}), pt({100, 7}), pt({-50, 3}), pt({0, 0}),
                         pt({q(7, 2), 0}), pt({q(5, 2), 0}), pt({q(1000001, 1000), 5})})
    CHECK_POINT(ff.apply(x), x);
  // Distance delta/2 on both sides: moved by D/2; distance 3 delta/4: by D/4.
  CHECK_POINT(ff.apply(pt({q(5, 4), 1})), Point(pt({q(5, 4), 1}) + D / Rational(2)));
  CHECK_POINT(ff.apply(pt({q(3, 4), 1})), Point(pt({q(3, 4), 1}) + D / Rational(2)));
  CHECK_POINT(ff.apply(pt({q(11, 8), 1})), Point(pt({q(11, 8), 1}) + D / Rational(4)));
}

BOOST_AUTO_TEST_CASE(plateau_hat_layer_moves_its_plateau_and_keeps_the_hull) {
  const Point r = pt({1, 2});
  const Rational t_q = 3, delta = q(1, 2), p = delta * plateau_fraction();
  BOOST_TEST(p == q(1, 32));
  const Point D = pt({-2, q(5, 3)});
  const auto ff = plateau_hat_layer(r, t_q, delta, D);
  const auto hat = hat_layer(r, t_q, delta, D);
  BOOST_TEST(ff.width() == 4u);
  BOOST_TEST(ff.eta == 1);
  const auto at = [&](const Rational& t) { return pt({t, 0}); };  // reads t along r
  // The plateau [t_q - p, t_q + p]: moved by exactly D.
  for (const Rational& t : {t_q, t_q - p, t_q + p, t_q + p / 3, t_q - p * q(7, 8)})
    CHECK_POINT(ff.apply(at(t)), Point(at(t) + D));
  CHECK_POINT(ff.apply(pt({1, 1})), Point(pt({1, 1}) + D));  // another point reading t_q
  // Outside the hull (t_q - delta, t_q + delta): unchanged, as the hat.
  for (const Rational& t : {t_q - delta, t_q + delta, t_q + 2 * delta, t_q - 7, Rational(1000), Rational(-1000)}) {
    CHECK_POINT(ff.apply(at(t)), at(t));
    CHECK_POINT(hat.apply(at(t)), at(t));
  }
  // On a ramp: linear from 1 at t_q +/- p to 0 at t_q +/- delta.
  for (const Rational& s : {q(1, 4), q(1, 2), q(9, 10)}) {
    const Rational off = p + (delta - p) * s;
    CHECK_POINT(ff.apply(at(t_q + off)), Point(at(t_q + off) + D * (1 - s)));
    CHECK_POINT(ff.apply(at(t_q - off)), Point(at(t_q - off) + D * (1 - s)));
  }
}

// The plateau count keeps the leader construction within lem:counts' (20d+22) sum(m) parameters
// with the given number of runs (at most sum(m)), and is the largest such count (capped at
// K + sum(m) - 1); fewer runs never allow fewer plateaus.
BOOST_AUTO_TEST_CASE(plateau_hats_within_bound_is_the_largest_count_within_the_bound) {
  const auto params = [](std::size_t d, std::size_t S, std::size_t K, bool shift, std::size_t R, std::size_t plateaus) {
    return (6 * d + 7) * (S + K) + (2 * d + 1) * plateaus + (8 * d + 8) * R + 4 * d + 1 + (shift ? 2 * d : 0);
  };
  std::size_t capped = 0, limited = 0;
  for (std::size_t d : {2u, 3u, 16u, 784u})
    for (std::size_t S : {1u, 2u, 5u, 300u, 4000u})
      for (std::size_t K = 0; K < S; K += 1 + S / 7)
        for (std::size_t R : {std::size_t{1}, (S + 1) / 2, S})
          for (const bool shift : {false, true}) {
            const std::size_t n = plateau_hats_within_bound(d, S, K, shift, R);
            const std::size_t bound = (20 * d + 22) * S;
            BOOST_TEST_CONTEXT("d " << d << ", sum(m) " << S << ", K " << K << ", runs " << R << ", shift " << shift) {
              BOOST_TEST(n <= K + S - 1);
              if (n > 0) BOOST_TEST(params(d, S, K, shift, R, n) <= bound);
              if (n < K + S - 1) BOOST_TEST(params(d, S, K, shift, R, n + 1) > bound);
              if (R > 1) BOOST_TEST(plateau_hats_within_bound(d, S, K, shift, R - 1) >= n);
            }
            (n == K + S - 1 ? capped : limited) += 1;
          }
  BOOST_TEST(capped > 0u);
  BOOST_TEST(limited > 0u);
}

BOOST_AUTO_TEST_CASE(flat_hat_layer_collapses_its_window) {
  const Point v = pt({1, 2, -1});
  const Point r = pt({1, 1, 2});
  BOOST_TEST_REQUIRE(dot(r, v) == 1);  // precondition r.v = 1
  const Point u = pt({2, 0, -1});      // r.u = 0: moves off the line without changing the reading
  BOOST_TEST_REQUIRE(dot(r, u) == 0);
  const Point y = pt({2, -1, q(7, 2)});
  for (const auto& [z, df] : {std::pair{q(5, 3), q(1, 4)}, std::pair{q(-7, 2), q(1, 1024)},
                              std::pair{Rational(0), q(3, 1)}}) {
    BOOST_TEST_CONTEXT("z = " << z << ", df = " << df) {
      const auto ff = flat_hat_layer(r, v, z, df, y);
      BOOST_TEST(ff.width() == 4u);
      for (const Rational& t : {z - df, z + df, z, z - df / 3, z + df * q(5, 7), z - df * q(999, 1000)}) {
        const Point x = v * t;
        BOOST_TEST(dot(r, x) == t);
        CHECK_POINT(ff.apply(x), y);
      }
      for (const Rational& t : {z - 2 * df, z + 2 * df, z - 2 * df - q(1, 1000), z + 2 * df + q(1, 3), z + 10,
                                z - 100, Rational(10000)}) {
        const Point x = v * t;
        CHECK_POINT(ff.apply(x), x);
        const Point xo = x + u;  // same reading, off the line
        CHECK_POINT(ff.apply(xo), xo);
      }
    }
  }
}

BOOST_AUTO_TEST_CASE(shrink_hat_layer_shrinks_and_places_leader) {
  const Point r = pt({1, 3});
  const Point leader = pt({3, 2});  // t_q = 9
  const Point place = pt({9, 0});
  const Rational eps = q(1, 4), delta = 1;
  const Point C_e1 = pt({4, 0});
  const Point D = place - (leader * eps + C_e1);  // (17/4, -1/2)
  CHECK_POINT(D, pt({q(17, 4), q(-1, 2)}));
  const auto ff = shrink_hat_layer(r, dot(r, leader), delta, D, eps, C_e1);
  BOOST_TEST(ff.width() == 4u);
  BOOST_TEST(ff.eta == eps);
  CHECK_POINT(ff.apply(leader), place);
  // Unmoved tokens (readings 0, 4, 13, exactly 8 = t_q - delta, 10 = t_q + delta, far right 1003).
  for (const Point& x : {pt({0, 0}), pt({1, 1}), pt({-2, 5}), pt({7, q(1, 3)}), pt({4, 2}), pt({1000, 1})})
    CHECK_POINT(ff.apply(x), Point(x * eps + C_e1));
  CHECK_POINT(ff.apply(pt({1, 1})), pt({q(17, 4), q(1, 4)}));
  CHECK_POINT(ff.apply(pt({-2, 5})), pt({q(7, 2), q(5, 4)}));
}

BOOST_AUTO_TEST_CASE(identity_outside_breakpoints_forms) {
  const Point r = pt({1, 2});
  const auto hat = hat_layer(r, 3, q(1, 2), pt({-2, q(5, 3)}));
  const auto f = identity_outside_breakpoints(hat);
  BOOST_TEST_REQUIRE(f.has_value());
  CHECK_POINT(f->r, r);
  BOOST_TEST(f->lo == q(5, 2));
  BOOST_TEST(f->hi == q(7, 2));
  BOOST_TEST(f->slope.size() == 3u);
  for (const auto& s : f->slope) BOOST_TEST((s > 0 && s == pow2(floor_log2(s))));  // balanced by powers of two

  const Point v = pt({1, 2, -1}), rf = pt({1, 1, 2});
  const Rational z = q(5, 3), df = q(1, 4);
  const auto flat = flat_hat_layer(rf, v, z, df, pt({2, -1, q(7, 2)}));
  const auto g = identity_outside_breakpoints(flat);
  BOOST_TEST_REQUIRE(g.has_value());
  CHECK_POINT(g->r, rf);
  BOOST_TEST(g->lo == z - 2 * df);
  BOOST_TEST(g->hi == z + 2 * df);

  // A row that is a multiple of r (same function: row 2r, offset doubled, column halved).
  auto scaled = hat;
  scaled.U.edit().row(1) *= Rational(2);
  scaled.b[1] *= Rational(2);
  scaled.W.edit().col(1) /= Rational(2);
  for (const Point& x : {pt({1, 1}), pt({q(5, 4), 1}), pt({9, 9})}) CHECK_POINT(scaled.apply(x), hat.apply(x));
  const auto h = identity_outside_breakpoints(scaled);
  BOOST_TEST_REQUIRE(h.has_value());
  BOOST_TEST(h->slope[1] == 2 * f->slope[1]);
  BOOST_TEST(h->lo == q(5, 2));
  BOOST_TEST(h->hi == q(7, 2));

  // eta != 1 (shrink layer): not identity outside.
  BOOST_TEST(!identity_outside_breakpoints(
                  shrink_hat_layer(r, 3, q(1, 2), pt({1, 1}), q(1, 4), pt({4, 0})))
                  .has_value());
  // Rows not parallel.
  auto skew = hat;
  skew.U.edit().row(1) = pt({2, 1}).transpose();
  BOOST_TEST(!identity_outside_breakpoints(skew).has_value());
  // A single ReLU: the identity on the left but not far right.
  FeedForward<Rational> ramp;
  ramp.U.edit().resize(1, 2);
  ramp.U.edit() << 1, 2;
  ramp.b = pt({-1});
  ramp.W.edit().resize(2, 1);
  ramp.W.edit() << 1, 0;
  BOOST_TEST(!identity_outside_breakpoints(ramp).has_value());
  // A reversed ReLU: the identity on the right, not on the left.
  ramp.U.edit() << -1, -2;
  BOOST_TEST(!identity_outside_breakpoints(ramp).has_value());
  // Hat with its last unit dropped: wrong far right.
  auto cut = hat;
  cut.W.edit().col(2).setZero();
  BOOST_TEST(!identity_outside_breakpoints(cut).has_value());
  // No breakpoints (U = 0) and width 0: nullopt.
  FeedForward<Rational> zero_u = hat;
  zero_u.U.edit().setZero();
  BOOST_TEST(!identity_outside_breakpoints(zero_u).has_value());
  FeedForward<Rational> empty;
  empty.U.edit().resize(0, 2);
  empty.b.resize(0);
  empty.W.edit().resize(2, 0);
  BOOST_TEST(!identity_outside_breakpoints(empty).has_value());
}

// ---------------------------------------------------------------------------------------------
// apply_carried (lem:direction-carrying)
// ---------------------------------------------------------------------------------------------

BOOST_AUTO_TEST_CASE(carried_token_through_flat_hat) {
  const Point v = pt({1, 2, -1}), r = pt({1, 1, 2});
  BOOST_TEST_REQUIRE(dot(r, v) == 1);
  const Rational z = q(5, 3), df = q(1, 8);
  const Point y = pt({2, -1, q(7, 2)});
  const auto ff = flat_hat_layer(r, v, z, df, y);

  // p + c v, c in [z - df/2, z + df/2]: an exact point y.
  {
    const CarriedToken x = CarriedToken::enclosure(Point::Zero(3), v, z - df / 2, z + df / 2);
    const auto [rlo, rhi] = x.reading(r);
    BOOST_TEST(rlo == z - df / 2);
    BOOST_TEST(rhi == z + df / 2);
    std::size_t unit = 0;
    const auto out = apply_carried(ff, x, &unit);
    BOOST_TEST_REQUIRE(out.has_value());
    BOOST_TEST(out->is_exact());
    BOOST_TEST(!out->w);  // an exact point stores no direction
    CHECK_POINT(out->p, y);
  }
  // p itself on the line (p = v/3): c shifted accordingly; the whole flat [z - df, z + df].
  {
    const CarriedToken x = CarriedToken::enclosure(v / Rational(3), v, z - df - q(1, 3), z + df - q(1, 3));
    const auto out = apply_carried(ff, x, nullptr);
    BOOST_TEST_REQUIRE(out.has_value());
    BOOST_TEST(out->is_exact());
    CHECK_POINT(out->p, y);
  }
  // Direction w = -2v (the coefficient runs the other way).
  {
    const CarriedToken x = CarriedToken::enclosure(Point::Zero(3), Point(v * Rational(-2)), -(z + df / 3) / 2, -(z - df / 4) / 2);
    const auto out = apply_carried(ff, x, nullptr);
    BOOST_TEST_REQUIRE(out.has_value());
    BOOST_TEST(out->is_exact());
    CHECK_POINT(out->p, y);
  }
  // Entirely outside the window (right, left, touching the outer breakpoints): unchanged.
  for (const auto& [lo, hi] : {std::pair{z + 2 * df, z + 3 * df}, std::pair{z + 5, z + 7},
                               std::pair{z - 3 * df, z - 2 * df}, std::pair{z - 100, z - 99}}) {
    const Point p = pt({q(1, 2), 0, 1});  // r.p = 5/2, off the line
    const CarriedToken x = CarriedToken::enclosure(p, v, lo - q(5, 2), hi - q(5, 2));
    std::size_t unit = 0;
    const auto out = apply_carried(ff, x, &unit);
    BOOST_TEST_REQUIRE(out.has_value());
    CHECK_POINT(out->p, x.p);
    BOOST_TEST(out->w == x.w);  // the same direction object: no copy
    BOOST_TEST(out->lo == x.lo);
    BOOST_TEST(out->hi == x.hi);
  }
  // Straddling a breakpoint: nullopt naming the unit (1-based).
  struct Case {
    Rational lo, hi;
    std::size_t unit;
  };
  for (const auto& c : {Case{z - 3 * df, z - df - df / 2, 1}, Case{z - df - df / 2, z - df / 2, 2},
                        Case{z + df / 2, z + df + df / 2, 3}, Case{z + df + df / 2, z + 3 * df, 4}}) {
    BOOST_TEST_CONTEXT("enclosure [" << c.lo << ", " << c.hi << "]") {
      const CarriedToken x = CarriedToken::enclosure(Point::Zero(3), v, c.lo, c.hi);
      std::size_t unit = 0;
      const auto out = apply_carried(ff, x, &unit);
      BOOST_TEST(!out.has_value());
      BOOST_TEST(unit == c.unit);
    }
  }
  // An exact token behaves like FeedForward::apply.
  for (const Point& x : {Point(v * z), Point(v * (z + df * q(3, 2))), pt({1, 2, 3})}) {
    const auto out = apply_carried(ff, CarriedToken::exact(x), nullptr);
    BOOST_TEST_REQUIRE(out.has_value());
    BOOST_TEST(out->is_exact());
    BOOST_TEST(!out->w);  // no stored zero direction
    CHECK_POINT(out->p, ff.apply(x));
    const auto [rlo, rhi] = out->reading(v);
    BOOST_TEST(rlo == dot(v, out->p));
    BOOST_TEST(rhi == rlo);
  }
}

// Templates that branch on comparisons (ReLU signs, argmax) accept only scalars whose
// comparisons decide; intervals must go through the enclosure code paths instead.
BOOST_AUTO_TEST_CASE(comparison_templates_refuse_interval_scalars) {
  static_assert(OrderedScalar<Rational> && OrderedScalar<double> && OrderedScalar<float>);
  static_assert(!OrderedScalar<Interval>);
  static_assert(scalar_traits<Rational>::exact && !scalar_traits<double>::exact);
  static_assert(requires(const FeedForward<double>& f, const Vec<double>& x) { f.apply(x); });
  BOOST_TEST(!OrderedScalar<Interval>);
}

BOOST_AUTO_TEST_SUITE_END()
