#include <boost/test/unit_test.hpp>

#include <cstdint>
#include <cstdlib>
#include <iostream>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include "seqi/numbers/interval.hpp"
#include "seqi/numbers/rational.hpp"
#include "interval_support.hpp"

BOOST_AUTO_TEST_SUITE(test_interval_functions)

using seqi::Integer;
using seqi::Interval;
using seqi::Rational;
using namespace seqi_test::interval;

// ---- randomised-test scaffolding (Arb style: print the seed, replay with SEQI_SEED) ----
// The seed, the per-case streams, SEQI_CHECK and the generators are in interval_support.hpp.

// PrintSeed is registered once per driver, in test_interval.cpp.

namespace {

// Taylor enclosure of exp(r) for |r| <= 1: S_N +- |r|^(N+1)/(N+1)! / (1 - |r|/(N+2)).
std::pair<Rational, Rational> exp_taylor(const Rational& r, unsigned n) {
  Rational s = 0, term = 1;
  for (unsigned k = 0; k <= n; ++k) {
    s += term;
    term = term * r / Rational(k + 1);  // term = r^(k+1)/(k+1)!
  }
  Rational tail = abs(term) / (1 - abs(r) / Rational(n + 2));
  return {s - tail, s + tail};
}

}  // namespace

// ---- exp and log -----------------------------------------------------------------------

BOOST_AUTO_TEST_CASE(exp_contains_taylor_enclosure) {
  const Rational rs[] = {Rational(0),     Rational(1),      Rational(-1),        Rational(1, 2),
                         Rational(-1, 3), Rational(3, 7),   Rational(1, 1024),   Rational(-999, 1000),
                         Rational(2, 3),  Rational(-5, 8),  Rational(1, 100000), Rational(7, 9)};
  for (const Rational& r : rs) {
    auto [lo, hi] = exp_taylor(r, 80);  // tail < 1/81! ~ 2^-400
    BOOST_TEST_CONTEXT("r = " << seqi::to_string(r)) {
      for (unsigned p : {24u, 53u, 200u}) {
        Interval e = exp(Interval(r, p));
        BOOST_TEST(e.lower() <= lo);
        BOOST_TEST(e.upper() >= hi);
        BOOST_TEST(e.subset_of(lo - e.radius_upper() * 8, hi + e.radius_upper() * 8));
        // Representable r: each endpoint is within one ulp of exp(r).
        if (Interval(r, p).radius_upper() == 0) BOOST_TEST(e.upper() - e.lower() <= pow2(2 - long(p)) * hi);
      }
    }
  }
  Interval e0 = exp(Interval(Rational(0), 53));
  BOOST_TEST(e0.lower() == 1);
  BOOST_TEST(e0.upper() == 1);
}

BOOST_AUTO_TEST_CASE(random_exp_agrees_with_high_precision) {
  Rng g = make_rng(6);
  for (int i = 0; i < 300; ++i) {
    unsigned p = random_precision(g);
    Rational a = random_rational(g), b = random_rational(g);
    while (abs(a) > 60) a /= 1024;  // keep exp(x) well inside the exponent range
    while (abs(b) > 60) b /= 1024;
    if (a > b) std::swap(a, b);
    if (below(g, 3) == 0) b = a;
    Interval x = Interval::hull(a, b, p);
    Interval e = exp(x);
    SEQI_CHECK(e.lower() >= 0, seqi::to_string(x));
    for (int k = 0; k < 3; ++k) {
      Rational t = random_member(g, x);
      Interval ref = exp(Interval(t, 1000));
      SEQI_CHECK(ref.radius_upper() <= ref.upper() * pow2(-980), seqi::to_string(ref));
      SEQI_CHECK(!(ref.certainly_less(e.lower()) || ref.certainly_greater(e.upper())),  // intersect
                 seqi::to_string(x) << " t=" << seqi::to_string(t));
      SEQI_CHECK(ref.subset_of(e.lower(), e.upper()), seqi::to_string(x) << " t=" << seqi::to_string(t));
    }
  }
}

BOOST_AUTO_TEST_CASE(exp_width_shrinks_with_precision) {
  for (const Rational& r : {Rational(1, 3), Rational(-7, 5), Rational(22, 7)}) {
    Interval lo = exp(Interval(r, 53)), hi = exp(Interval(r, 200));
    BOOST_TEST(hi.radius_upper() < lo.radius_upper());
    BOOST_TEST(hi.radius_upper() <= pow2(-190));
    BOOST_TEST(hi.subset_of(lo.lower(), lo.upper()));
  }
}

BOOST_AUTO_TEST_CASE(exp_extremes) {
  Interval e = exp(Interval(Rational(-10000), 53));  // exp(-10000) ~ 2^-14427
  BOOST_TEST(e.lower() >= 0);
  BOOST_TEST(e.upper() > 0);
  BOOST_TEST(e.certainly_less(pow2(-14426)));
  BOOST_TEST(e.certainly_greater(pow2(-14428)));
  Interval w = exp(Interval::hull(Rational(-10000), Rational(-9999, 1), 53));
  BOOST_TEST(w.lower() >= 0);
  BOOST_TEST(w.contains(e.upper()));
  BOOST_CHECK_THROW(exp(Interval(pow2(40), 53)), std::overflow_error);
  // Below MPFR's exponent range the lower bound underflows to exactly 0; the upper
  // bound stays a positive float (compared without converting it to a rational).
  Interval u = exp(Interval(-pow2(40), 53));
  BOOST_TEST(u.lower() == 0);
  BOOST_TEST(!u.certainly_less(Rational(0)));
  BOOST_TEST(u.contains(Rational(0)));
  BOOST_TEST(u.certainly_less(pow2(-100000)));
  BOOST_TEST(u.upper() > 0);
}

BOOST_AUTO_TEST_CASE(log_against_series_and_exp) {
  // log 2 = sum_{k>=1} 1/(k 2^k), tail after N terms in (0, 1/((N+1) 2^N)].
  Rational s = 0;
  const unsigned n = 260;
  for (unsigned k = 1; k <= n; ++k) s += Rational(1) / (Rational(k) * pow2(k));
  for (unsigned p : {24u, 53u, 200u}) {
    Interval l = log(Interval(Rational(2), p));
    BOOST_TEST(l.lower() <= s);
    BOOST_TEST(l.upper() >= s + Rational(1) / (Rational(n + 1) * pow2(n)));
    BOOST_TEST(l.upper() - l.lower() <= pow2(1 - long(p)));
  }
  BOOST_TEST(log(Interval(Rational(1), 53)).lower() == 0);
  BOOST_TEST(log(Interval(Rational(1), 53)).upper() == 0);

  Rng g = make_rng(7);
  for (int i = 0; i < 300; ++i) {
    unsigned p = random_precision(g);
    Rational a = random_positive(g), b = random_positive(g);
    if (a > b) std::swap(a, b);
    Interval x = Interval::hull(a, b, p);
    Interval l = log(x);
    Rational t = random_member(g, x);
    Interval ref = log(Interval(t, 1000));
    SEQI_CHECK(ref.subset_of(l.lower(), l.upper()), seqi::to_string(x) << " t=" << seqi::to_string(t));
    // Independent of mpfr_log: exp(lower) <= t <= exp(upper), decided at 1000 bits.
    SEQI_CHECK(!exp(Interval(l.lower(), 1000)).certainly_greater(t), seqi::to_string(x));
    SEQI_CHECK(!exp(Interval(l.upper(), 1000)).certainly_less(t), seqi::to_string(x));
    SEQI_CHECK(exp(Interval(l.lower(), 1000)).upper() <= t, seqi::to_string(x));
    SEQI_CHECK(exp(Interval(l.upper(), 1000)).lower() >= t, seqi::to_string(x));
  }
}

BOOST_AUTO_TEST_CASE(log_domain) {
  BOOST_CHECK_THROW(log(Interval(Rational(0), 53)), std::domain_error);
  BOOST_CHECK_THROW(log(Interval(Rational(-1, 2), 53)), std::domain_error);
  BOOST_CHECK_THROW(log(Interval::hull(Rational(0), Rational(1), 53)), std::domain_error);
  BOOST_CHECK_THROW(log(Interval::hull(Rational(-1), Rational(1), 53)), std::domain_error);
  Interval tiny = log(Interval::hull(pow2(-1000), Rational(1), 53));
  BOOST_TEST(tiny.contains(Rational(0)));
  BOOST_TEST(tiny.lower() < Rational(-693));
  BOOST_TEST(tiny.certainly_greater(Rational(-694)));
}

BOOST_AUTO_TEST_CASE(softmax_probabilities_sum_to_one) {
  const std::vector<Rational> z = {Rational(1, 3), Rational(-2, 7), Rational(5, 11), Rational(-3)};
  for (unsigned p : {53u, 128u}) {
    std::vector<Interval> e;
    for (const Rational& zi : z) e.push_back(exp(Interval(zi, p)));
    Interval denom = seqi::sum(e);
    std::vector<Interval> probs;
    for (const Interval& ei : e) probs.push_back(ei / denom);
    Interval total = seqi::sum(probs);
    BOOST_TEST(total.contains(Rational(1)));
    BOOST_TEST(total.radius_upper() < pow2(8 - long(p)));
    // log-sum-exp route: log(sum) - z_i = -log p_i.
    Interval lse = log(denom);
    BOOST_TEST((lse - z[0]).certainly_greater(Rational(0)));
    BOOST_TEST(exp(Rational(0) - (lse - z[0])).subset_of(probs[0].lower() - pow2(4 - long(p)),
                                                          probs[0].upper() + pow2(4 - long(p))));
  }
}

BOOST_AUTO_TEST_SUITE_END()
