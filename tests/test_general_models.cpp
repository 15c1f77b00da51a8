#define BOOST_TEST_MODULE general_models
#include <boost/test/unit_test.hpp>

#include <algorithm>
#include <cstdlib>
#include <iostream>
#include <random>
#include <string>
#include <vector>

#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include <boost/multiprecision/mpfr.hpp>
#include <nlohmann/json.hpp>

#include "seqi/certification/bisection.hpp"
#include "seqi/certification/distance_enclosure.hpp"
#include "seqi/forward/general_attention.hpp"
#include "seqi/forward/general_feed_forward.hpp"
#include "seqi/certification/general_models.hpp"
#include "seqi/forward/softmax_weights.hpp"
#include "seqi/io/random_model.hpp"

using namespace seqi;

namespace {

namespace bmp = boost::multiprecision;
// The independent reference: 151 decimal digits (about 502 bits), written from the definitions.
using Hp = bmp::number<bmp::mpfr_float_backend<151>, bmp::et_off>;
using HpVec = std::vector<Hp>;

Rational q(long a, long b = 1) { return Rational(a) / Rational(b); }
Hp hp(const Rational& x) { return Hp(Integer(numerator(x))) / Hp(Integer(denominator(x))); }

std::uint64_t base_seed(const char* who) {
  const char* s = std::getenv("SEQI_SEED");
  const std::uint64_t seed = s && *s ? std::strtoull(s, nullptr, 10) : 20261130;
  std::cout << "general_models/" << who << ": SEQI_SEED=" << seed << " to replay\n";
  return seed;
}

struct TestRng : RandomModelDraw {
  // A rational inside [lo, hi] (lo when the interval is a point).
  Rational inside(const Interval& x) {
    const Rational lo = x.lower(), hi = x.upper();
    return lo + (hi - lo) * q(integer(0, 1000), 1000);
  }
};

FeedForward<Rational> random_ff(TestRng& r, int d) { return random_feed_forward(r, d); }

// ---- the independent replay ------------------------------------------------------------------

HpVec apply_hp(const StructuredMatrix<Rational>& M, const HpVec& x) {
  HpVec y(x.size());
  for (std::size_t k = 0; k < x.size(); ++k) y[k] = hp(M.alpha) * x[k];
  for (const auto& t : M.terms) {
    Hp c = 0;
    for (std::size_t k = 0; k < x.size(); ++k) c += hp(t.q[static_cast<Eigen::Index>(k)]) * x[k];
    for (std::size_t k = 0; k < x.size(); ++k) y[k] += hp(t.p[static_cast<Eigen::Index>(k)]) * c;
  }
  return y;
}

Hp dot_hp(const HpVec& a, const HpVec& b) {
  Hp s = 0;
  for (std::size_t k = 0; k < a.size(); ++k) s += a[k] * b[k];
  return s;
}

// SA_i = rho x_i + V sum_l pi_il x_l, pi_il = exp(s_il / tau) / sum_m exp(s_im / tau), s_il = <A x_i, x_l>.
std::vector<HpVec> softmax_attention_hp(const SelfAttention<Rational>& sa, const std::vector<HpVec>& X,
                                        const Rational& tau) {
  std::vector<HpVec> out;
  for (const auto& xi : X) {
    const HpVec Axi = apply_hp(sa.A, xi);
    std::vector<Hp> e;
    for (const auto& xl : X) e.push_back(exp(dot_hp(Axi, xl) / hp(tau)));
    Hp z = 0;
    for (const auto& v : e) z += v;
    HpVec mix(xi.size(), Hp(0));
    for (std::size_t l = 0; l < X.size(); ++l)
      for (std::size_t k = 0; k < xi.size(); ++k) mix[k] += e[l] / z * X[l][k];
    const HpVec vm = apply_hp(sa.V, mix);
    HpVec o(xi.size());
    for (std::size_t k = 0; k < xi.size(); ++k) o[k] = hp(sa.rho) * xi[k] + vm[k];
    out.push_back(o);
  }
  return out;
}

HpVec ff_hp(const FeedForward<Rational>& ff, const HpVec& x) {
  HpVec y(x.size());
  for (std::size_t k = 0; k < x.size(); ++k) y[k] = hp(ff.eta) * x[k];
  for (Eigen::Index i = 0; i < ff.U.rows(); ++i) {
    Hp z = hp(ff.b[i]);
    for (std::size_t k = 0; k < x.size(); ++k) z += hp(ff.U(i, static_cast<Eigen::Index>(k))) * x[k];
    if (z > 0)
      for (std::size_t k = 0; k < x.size(); ++k) y[k] += hp(ff.W(static_cast<Eigen::Index>(k), i)) * z;
  }
  return y;
}

std::vector<HpVec> to_hp(const Sequence& X) {
  std::vector<HpVec> out;
  for (const auto& x : X) {
    HpVec v;
    for (Eigen::Index k = 0; k < x.size(); ++k) v.push_back(hp(x[k]));
    out.push_back(v);
  }
  return out;
}

std::vector<HpVec> softmax_forward_hp(const Transformer<Rational>& m, const Sequence& input, const Rational& tau) {
  auto X = to_hp(input);
  for (const auto& b : m.blocks) {
    X = softmax_attention_hp(b.sa, X, tau);
    for (auto& x : X) x = ff_hp(b.ff, x);
  }
  return X;
}

// Hardmax in exact rationals: pi_il = 1/|C_i| on C_i = argmax_l <A x_i, x_l>.
Sequence hardmax_forward_exact(const Transformer<Rational>& m, Sequence X) {
  for (const auto& b : m.blocks) {
    Sequence Y;
    for (const auto& xi : X) {
      const Point Axi = b.sa.A.apply(xi);
      Rational best = dot(Axi, X[0]);
      for (const auto& xl : X) best = std::max(best, dot(Axi, xl));
      Point mix = Point::Zero(xi.size());
      long count = 0;
      for (const auto& xl : X)
        if (dot(Axi, xl) == best) mix += xl, ++count;
      Y.push_back(xi * b.sa.rho + b.sa.V.apply(Point(mix / Rational(count))));
    }
    for (auto& y : Y) y = b.ff.apply(y);
    X = Y;
  }
  return X;
}

// Squared Hausdorff distance between the outputs (high precision) and exact targets.
Hp hausdorff_sq_hp(const std::vector<HpVec>& O, const Sequence& Y) {
  auto d2 = [](const HpVec& o, const Point& y) {
    Hp s = 0;
    for (std::size_t k = 0; k < o.size(); ++k) s += (o[k] - hp(y[static_cast<Eigen::Index>(k)])) * (o[k] - hp(y[static_cast<Eigen::Index>(k)]));
    return s;
  };
  Hp h = 0;
  for (const auto& o : O) {
    Hp best = d2(o, Y[0]);
    for (const auto& y : Y) best = std::min(best, d2(o, y));
    h = std::max(h, best);
  }
  for (const auto& y : Y) {
    Hp best = d2(O[0], y);
    for (const auto& o : O) best = std::min(best, d2(o, y));
    h = std::max(h, best);
  }
  return h;
}

// Exact rational targets within 2^-40 per coordinate of the replayed outputs, as a set.
Sequence targets_near(const std::vector<HpVec>& O) {
  Sequence Y;
  const Hp scale = pow(Hp(2), 40);
  for (const auto& o : O) {
    Point y(static_cast<Eigen::Index>(o.size()));
    for (std::size_t k = 0; k < o.size(); ++k) {
      const Hp r = round(o[k] * scale);
      Integer z;
      mpfr_get_z(z.backend().data(), r.backend().data(), MPFR_RNDN);  // r is an integer: exact
      y[static_cast<Eigen::Index>(k)] = Rational(z) / Rational(Integer(1) << 40);
    }
    if (std::none_of(Y.begin(), Y.end(), [&](const Point& z) { return equal_points(z, y); })) Y.push_back(y);
  }
  return Y;
}

Sequence random_tokens(TestRng& r, int d, std::size_t n) {
  Sequence X;
  while (X.size() < n) {
    Point x = r.point(d, 4);
    if (std::none_of(X.begin(), X.end(), [&](const Point& z) { return equal_points(z, x); })) X.push_back(x);
  }
  return X;
}

// v is the 500-bit reference, itself rounded (relative error far below 2^-400): the slack
// only absorbs that, never the enclosure's own width (at most 128 bits here).
bool between_hp(const Rational& lo, const Rational& hi, const Hp& v) {
  const Hp slack = ldexp(Hp(1) + abs(v), -400);
  return hp(lo) - slack <= v && v <= hp(hi) + slack;
}
bool contains_hp(const Interval& x, const Hp& v) { return between_hp(x.lower(), x.upper(), v); }

Dataset one_pair(int d, const Sequence& in, const Sequence& out) {
  Dataset data;
  data.dimension = d;
  data.pairs.push_back({TokenSequence(in), TokenSequence(out)});
  return data;
}

const std::string& verdict0(const Certificate& c) { return c.general->sequences.at(0).verdict; }

// The softmax verification at tau of the one sequence X -> Y gives the verdict "exact".
void expect_exact_softmax(const Transformer<Rational>& model, const Sequence& X, const Sequence& Y, const Rational& tau) {
  GeneralOptions opt;
  opt.tau = tau;
  const Certificate c = certify_general_softmax(one_pair(model.dimension, X, Y), model, opt);
  BOOST_TEST(c.verified, c.general->sequences.at(0).detail);
  BOOST_TEST(verdict0(c) == "exact", c.general->sequences.at(0).detail);
}

}  // namespace

// ---- random general models against the independent replay -----------------------------------

BOOST_AUTO_TEST_CASE(random_softmax_models_verified_near_and_refused_far) {
  TestRng r{{std::mt19937_64(base_seed("random_softmax_models"))}};
  const Rational delta = q(1, 1000000);
  std::size_t verified = 0, refused = 0, moved_checked = 0;
  for (int trial = 0; trial < 24; ++trial) {
    const int d = static_cast<int>(r.integer(2, 8));
    const auto L = static_cast<std::size_t>(r.integer(1, 8));
    const auto n = static_cast<std::size_t>(r.integer(1, 16));
    const Transformer<Rational> model = random_model(r, d, L);
    const Rational tau = r.integer(0, 1) ? Rational(1) : q(1, 2);
    const Sequence X = random_tokens(r, d, n);
    const auto O = softmax_forward_hp(model, X, tau);
    const Sequence Y = targets_near(O);
    BOOST_TEST_CONTEXT("trial " << trial << " d=" << d << " L=" << L << " n=" << n) {
      BOOST_TEST_REQUIRE(hausdorff_sq_hp(O, Y) <= hp(delta * delta / 4));
      GeneralOptions opt;
      opt.tau = tau;
      opt.tolerance = delta;
      const Certificate near = certify_general_softmax(one_pair(d, X, Y), model, opt);
      BOOST_TEST(near.verified, verdict0(near) << ": " << near.general->sequences[0].detail);
      verified += near.verified;
      // One target moved by 1000 delta in one coordinate.
      Sequence moved = Y;
      const auto k = static_cast<std::size_t>(r.integer(0, static_cast<long>(Y.size()) - 1));
      moved[k][r.integer(0, d - 1)] += 1000 * delta;
      const Hp h2 = hausdorff_sq_hp(O, moved);
      const Certificate far = certify_general_softmax(one_pair(d, X, moved), model, opt);
      if (h2 > hp(delta * delta)) BOOST_TEST(!far.verified, "verified although H^2 = " << h2.str(10));
      if (h2 > hp(4 * delta * delta)) {
        ++moved_checked;
        BOOST_TEST(verdict0(far) == "not interpolating", verdict0(far) << ": " << far.general->sequences[0].detail);
        refused += verdict0(far) == "not interpolating";
      }
      // Certified enclosure of H^2 contains the replayed value.
      const auto& s = near.general->sequences[0];
      const Hp h2near = hausdorff_sq_hp(O, Y);
      BOOST_TEST(between_hp(s.hausdorff_sq_lo, s.hausdorff_sq_hi, h2near));
    }
  }
  std::cout << "random softmax models: " << verified << " of 24 verified near, " << refused << " of " << moved_checked
            << " far refused\n";
  BOOST_TEST(moved_checked > 12u);
}

BOOST_AUTO_TEST_CASE(random_hardmax_models_exact_within_and_refused) {
  TestRng r{{std::mt19937_64(base_seed("random_hardmax_models"))}};
  const Rational delta = q(1, 1000000);
  for (int trial = 0; trial < 24; ++trial) {
    const int d = static_cast<int>(r.integer(2, 8));
    const auto L = static_cast<std::size_t>(r.integer(1, 8));
    const auto n = static_cast<std::size_t>(r.integer(1, 16));
    const Transformer<Rational> model = random_model(r, d, L);
    const Sequence X = random_tokens(r, d, n);
    const Sequence out = hardmax_forward_exact(model, X);
    Sequence Y;
    for (const auto& y : out)
      if (std::none_of(Y.begin(), Y.end(), [&](const Point& z) { return equal_points(z, y); })) Y.push_back(y);
    BOOST_TEST_CONTEXT("trial " << trial << " d=" << d << " L=" << L << " n=" << n) {
      GeneralOptions opt;
      const Certificate exact = certify_general_hardmax(one_pair(d, X, Y), model, opt);
      BOOST_TEST(exact.verified);
      BOOST_TEST(verdict0(exact) == "exact");
      Sequence near = Y;
      near[0][0] += delta / 2;
      BOOST_TEST(!certify_general_hardmax(one_pair(d, X, near), model, opt).verified);  // delta = 0: exact only
      opt.tolerance = delta;
      const Certificate within = certify_general_hardmax(one_pair(d, X, near), model, opt);
      BOOST_TEST(within.verified);
      BOOST_TEST(verdict0(within) == "within delta");
      BOOST_TEST(within.general->sequences[0].hausdorff_sq_hi == delta * delta / 4);  // exact: the one moved target
      Sequence far = Y;
      far[0][0] += 1000 * delta;
      bool other_close = false;  // another output within delta of the moved target
      for (const auto& o : out) other_close |= norm_sq(Point(o - far[0])) <= delta * delta;
      const Certificate refused = certify_general_hardmax(one_pair(d, X, far), model, opt);
      if (!other_close) {  // the moved target is farther than delta from every output
        BOOST_TEST(!refused.verified);
        BOOST_TEST(verdict0(refused) == "not interpolating");
      }
    }
  }
}

// ---- the audit's exact cases ------------------------------------------------------------------

BOOST_AUTO_TEST_CASE(one_token_sequence_is_exact) {
  TestRng r{{std::mt19937_64(7)}};
  const Transformer<Rational> model = random_model(r, 3, 4);
  const Sequence X{Point(Vec<Rational>::Constant(3, q(1, 3)))};
  expect_exact_softmax(model, X, hardmax_forward_exact(model, X), q(1, 7));  // one token: both weights are 1
}

BOOST_AUTO_TEST_CASE(tied_scores_give_uniform_weights_exactly) {
  // A = p q^T with p.x_l = 1 for every token: s_il = (q.x_i)(p.x_l) ties over l.
  Transformer<Rational> model{2, {}};
  Block<Rational> b;
  b.sa.A = StructuredMatrix<Rational>::rank_one(Point(Vec<Rational>::Unit(2, 1)), Point(Vec<Rational>::Unit(2, 0)));
  b.sa.V = StructuredMatrix<Rational>::scaled_identity(q(1, 3));
  b.sa.rho = 1;
  b.ff.U = Mat<Rational>::Zero(0, 2);
  b.ff.W = Mat<Rational>::Zero(2, 0);
  b.ff.b = Vec<Rational>(0);
  model.blocks.push_back(b);
  Sequence X;
  for (long a : {0L, 1L, 5L}) X.push_back((Point(2) << q(a), q(1)).finished());
  expect_exact_softmax(model, X, hardmax_forward_exact(model, X), q(1, 1000));  // ties: hardmax is uniform too
}

BOOST_AUTO_TEST_CASE(identity_value_mean_shift_and_collapsed_tokens_are_exact) {
  // Block 1: A = 0, V = I (mean shift), then a FF that sends every token to the point (1, 2)
  // (eta = 0, U = 0, b = 1, W = (1, 2)^T). Block 2: A = I/1000, V = I on equal tokens (the
  // weights do not matter), then a ReLU whose breakpoint is exactly the token's reading.
  Transformer<Rational> model{2, {}};
  Block<Rational> b1;
  b1.sa.V = StructuredMatrix<Rational>::scaled_identity(1);
  b1.ff.eta = 0;
  b1.ff.U = Mat<Rational>::Zero(1, 2);
  b1.ff.b = Vec<Rational>::Constant(1, 1);
  b1.ff.W = (Mat<Rational>(2, 1) << 1, 2).finished();
  Block<Rational> b2;
  b2.sa.A = StructuredMatrix<Rational>::scaled_identity(q(1, 1000));
  b2.sa.V = StructuredMatrix<Rational>::scaled_identity(1);
  b2.ff.U = (Mat<Rational>(1, 2) << 1, 0).finished();
  b2.ff.b = Vec<Rational>::Constant(1, -2);  // reading 2 of the point (2, 4): exactly on the breakpoint
  b2.ff.W = (Mat<Rational>(2, 1) << 1, 1).finished();
  model.blocks = {b1, b2};
  const Sequence X{(Point(2) << 0, 0).finished(), (Point(2) << 1, q(-3, 7)).finished(),
                   (Point(2) << q(1, 8), q(1, 1000)).finished()};
  expect_exact_softmax(model, X, {(Point(2) << 2, 4).finished()}, q(1, 10));
  // the mean-shift block alone with V = I: x_i + mean, exact.
  Transformer<Rational> shift{2, {b1}};
  shift.blocks[0].ff = b2.ff;
  shift.blocks[0].ff.U = Mat<Rational>::Zero(0, 2);
  shift.blocks[0].ff.b = Vec<Rational>(0);
  shift.blocks[0].ff.W = Mat<Rational>::Zero(2, 0);
  expect_exact_softmax(shift, X, hardmax_forward_exact(shift, X), q(1, 10));
}

BOOST_AUTO_TEST_CASE(rank_one_value_collapse_returns_exact_points_through_a_flat_relu) {
  // V = v a^T with exact inputs: the enclosure lies on the exact direction v; a FF with
  // eta = 1 and unit W = -v, U = a^T... annihilates v: x - v (a.x) + v * 0 leaves p exact.
  Transformer<Rational> model{2, {}};
  Block<Rational> b;
  const Point v = (Point(2) << 1, 0).finished(), a = (Point(2) << 1, 0).finished();
  b.sa.A = StructuredMatrix<Rational>::scaled_identity(1);
  b.sa.V = StructuredMatrix<Rational>::rank_one(v, a);
  b.sa.rho = 1;
  // FF(x) = x - v relu(a.x + 10) (a.x + 10 > 0 everywhere here): kills the first coordinate.
  b.ff.U = a.transpose();
  b.ff.b = Vec<Rational>::Constant(1, 10);
  b.ff.W = -v;
  model.blocks = {b};
  const Sequence X{(Point(2) << 0, 1).finished(), (Point(2) << 1, 2).finished(), (Point(2) << q(1, 2), 3).finished()};
  const Sequence Y{(Point(2) << -10, 1).finished(), (Point(2) << -10, 2).finished(), (Point(2) << -10, 3).finished()};
  expect_exact_softmax(model, X, Y, q(1, 3));
}

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

BOOST_AUTO_TEST_CASE(refinement_raises_precision_until_decided_and_reports_an_exhausted_budget) {
  TestRng r{{std::mt19937_64(base_seed("refinement"))}};
  const int d = 3;
  Transformer<Rational> model = random_model(r, d, 3);
  for (auto& b : model.blocks) b.sa.A = StructuredMatrix<Rational>::scaled_identity(1);  // never exact weights
  const Sequence X = random_tokens(r, d, 6);
  const Rational tau = q(1, 2);
  const auto O = softmax_forward_hp(model, X, tau);
  const Sequence Y = targets_near(O);
  GeneralOptions opt;
  opt.tau = tau;
  opt.tolerance = q(1, 1000000000);  // 1e-9: 16-bit enclosures are far too wide
  opt.precision_bits = 16;
  const Certificate refined = certify_general_softmax(one_pair(d, X, Y), model, opt);
  BOOST_TEST(refined.verified, refined.general->sequences[0].detail);
  BOOST_TEST(refined.general->sequences[0].passes > 1u);
  BOOST_TEST(refined.general->sequences_refined == 1u);
  BOOST_TEST(refined.general->budget_exhausted == 0u);
  opt.refinements = 0;
  opt.bisections = 0;
  const Certificate spent = certify_general_softmax(one_pair(d, X, Y), model, opt);
  BOOST_TEST(!spent.verified);
  BOOST_TEST(verdict0(spent) == "undecided within budget");
  BOOST_TEST(spent.general->budget_exhausted == 1u);
  BOOST_TEST(spent.general->sequences[0].detail.find("output token") != std::string::npos);
  BOOST_TEST(spent.general->sequences[0].detail.find("block") != std::string::npos, spent.general->sequences[0].detail);
  BOOST_TEST(spent.general->sequences[0].bisection_cells == 0u);
  // With bisection the same budget runs cells; rounding at 16 bits is what is too wide, so
  // the cells do not decide it either, and the report says so.
  opt.bisections = 3;
  const Certificate cells = certify_general_softmax(one_pair(d, X, Y), model, opt);
  BOOST_TEST(verdict0(cells) == "undecided within budget");
  BOOST_TEST(cells.general->sequences[0].bisection_cells == 4u);
  BOOST_TEST(cells.general->sequences_bisected == 1u);
  BOOST_TEST(cells.general->sequences[0].detail.find("4 bisection cells") != std::string::npos,
             cells.general->sequences[0].detail);
}

// lem:bisection: the union of the cells' distance enclosures holds the true distance, and a
// verdict decided on it agrees with the independent replay.
BOOST_AUTO_TEST_CASE(bisection_cells_cover_the_true_distance) {
  TestRng r{{std::mt19937_64(base_seed("bisection"))}};
  std::size_t bisected = 0;
  for (int trial = 0; trial < 12; ++trial) {
    const int d = static_cast<int>(r.integer(2, 5));
    const Transformer<Rational> model = random_model(r, d, static_cast<std::size_t>(r.integer(1, 4)));
    const Rational tau = q(1, 2);
    const Sequence X = random_tokens(r, d, static_cast<std::size_t>(r.integer(2, 8)));
    const auto O = softmax_forward_hp(model, X, tau);
    Sequence Y = targets_near(O);
    if (r.integer(0, 1)) Y[0][0] += q(1, 1000);  // half the trials: a target off by 1e-3
    const Hp h2 = hausdorff_sq_hp(O, Y);
    const Rational delta = q(1, 10000);
    BOOST_TEST_CONTEXT("trial " << trial) {
      const auto b = bisect_sequence(model, SequencePair{TokenSequence(X), TokenSequence(Y)}, tau, 20, 0, delta, 6);
      if (!b) continue;  // an exact pass
      ++bisected;
      BOOST_TEST(between_hp(b->distance.hausdorff_sq_lo, b->distance.hausdorff_sq_hi, h2));
      if (b->verdict == SequenceVerdict::within_delta) BOOST_TEST(h2 <= hp(delta * delta));
      if (b->verdict == SequenceVerdict::not_interpolating) BOOST_TEST(h2 > hp(delta * delta));
      BOOST_TEST(b->cells >= 1u);
      BOOST_TEST(b->cells <= 7u);
    }
  }
  std::cout << "bisection: " << bisected << " of 12 sequences had enclosures to split\n";
  BOOST_TEST(bisected > 6u);
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

// ---- the CLI: --tolerance on a user's model ---------------------------------------------------

namespace {

struct CliRun {
  int code = -1;
  std::string out;
};

std::string slurp(const std::filesystem::path& p) {
  std::ifstream in(p);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// verify with arguments (no shell metacharacters in them); stdout captured.
CliRun run_verify_exe(const std::string& args, const std::filesystem::path& dir) {
  const auto out = dir / "out.txt";
  const std::string cmd = std::string(SEQI_VERIFY_EXE) + " " + args + " >" + out.string() + " 2>&1 </dev/null";
  const int status = std::system(cmd.c_str());
  BOOST_REQUIRE(status != -1 && WIFEXITED(status));
  return {WEXITSTATUS(status), slurp(out)};
}

}  // namespace

BOOST_AUTO_TEST_CASE(cli_tolerance_on_a_perturbed_model) {
  const auto dir = std::filesystem::temp_directory_path() / ("seqi-general-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  const std::string data = std::string(SEQI_DATASETS_DIR) + "/tiny-d2.json";
  const auto model = dir / "m.json";
  BOOST_TEST_REQUIRE(run_verify_exe("--save-model " + model.string() + " " + data, dir).code == 0);
  auto j = nlohmann::json::parse(slurp(model));
  auto& w = j.at("blocks").back().at("feed_forward").at("W").at(0).at(0);
  w = to_string(*parse_rational(w.get<std::string>()) + q(1, 1000000000));  // outputs move by about 1e-9
  const auto perturbed = dir / "p.json";
  std::ofstream(perturbed) << j.dump();
  const std::string m = " --model " + perturbed.string() + " ";
  for (const std::string setting : {"", "--softmax --tau 1/1000 "}) {
    BOOST_TEST_CONTEXT(setting) {
      const CliRun exact = run_verify_exe(setting + m + data, dir);
      BOOST_TEST(exact.code == 1, exact.out);
      BOOST_TEST(exact.out.find("not interpolating") != std::string::npos, exact.out);
      const CliRun within = run_verify_exe(setting + "--tolerance 1e-6 --json" + m + data, dir);
      BOOST_TEST_REQUIRE(within.code == 0, within.out);
      const auto js = nlohmann::json::parse(within.out);
      BOOST_TEST(js.at("general").at("tolerance") == "1/1000000");
      const auto& seqs = js.at("general").at("sequences");
      BOOST_TEST(seqs.size() == 2u);
      bool some_within = false;
      for (const auto& sq : seqs) {
        some_within |= sq.at("verdict") == "within delta";
        const Rational hi = *parse_rational(sq.at("hausdorff_sq").at(1).get<std::string>());
        BOOST_TEST(hi <= q(1, 1000000000000));
      }
      BOOST_TEST(some_within);
      BOOST_TEST(run_verify_exe(setting + "--tolerance 1e-12" + m + data, dir).code == 1);
    }
  }
  BOOST_TEST(run_verify_exe("--tolerance -1" + m + data, dir).code == 2);
  BOOST_TEST(run_verify_exe("--tolerance abc" + m + data, dir).code == 2);
  BOOST_TEST(run_verify_exe("--tolerance 1/10 " + data, dir).code == 2);  // nothing to tolerate: no --model
  std::filesystem::remove_all(dir);
}
