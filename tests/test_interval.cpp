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

BOOST_AUTO_TEST_SUITE(test_interval)

using seqi::Integer;
using seqi::Interval;
using seqi::Rational;
using namespace seqi_test::interval;

// ---- randomised-test scaffolding (Arb style: print the seed, replay with SEQI_SEED) ----
// The seed, the per-case streams, SEQI_CHECK and the generators are in interval_support.hpp.

BOOST_TEST_GLOBAL_FIXTURE(PrintSeed);

namespace {

Rational min4(const Rational& a, const Rational& b, const Rational& c, const Rational& d) {
  return std::min(std::min(a, b), std::min(c, d));
}
Rational max4(const Rational& a, const Rational& b, const Rational& c, const Rational& d) {
  return std::max(std::max(a, b), std::max(c, d));
}

// r's endpoints are the exact extremes lo/hi rounded outward by at most one ulp at r's
// precision: lower() <= lo, lo - lower() <= 2^(1-p)|lo| (same for the upper side).
bool tight_around(const Interval& r, const Rational& lo, const Rational& hi) {
  Rational eps = pow2(1 - static_cast<long>(r.precision()));
  return r.lower() <= lo && lo - r.lower() <= eps * abs(lo) && r.upper() >= hi &&
         r.upper() - hi <= eps * abs(hi);
}

}  // namespace

// ---- construction and exact predicates ------------------------------------------------

BOOST_AUTO_TEST_CASE(point_enclosure_is_smallest) {
  Rng g = make_rng(1);
  for (int i = 0; i < 400; ++i) {
    Rational q = random_rational(g);
    unsigned p = random_precision(g);
    Interval x(q, p);
    SEQI_CHECK(x.precision() == p, p);
    SEQI_CHECK(x.contains(q), seqi::to_string(q) << " p=" << p);
    // Either q is representable (degenerate interval) or the endpoints are adjacent floats.
    mpfr_t next;
    mpfr_init2(next, static_cast<mpfr_prec_t>(p));
    mpfr_set_q(next, x.lower().backend().data(), MPFR_RNDN);  // exact: lower() has p bits
    if (x.lower() != x.upper()) mpfr_nextabove(next);
    Rational above;
    mpfr_get_q(above.backend().data(), next);
    SEQI_CHECK(above == x.upper(), seqi::to_string(q) << " p=" << p);
    mpfr_clear(next);
  }
  // Dyadic values representable at the precision are exact.
  Interval half(Rational(3, 8), 2);
  BOOST_TEST(half.lower() == Rational(3, 8));
  BOOST_TEST(half.upper() == Rational(3, 8));
  BOOST_TEST(half.radius_upper() == 0);
  // 1/3 at 53 bits: the double neighbours of 1/3.
  Interval third(Rational(1, 3), 53);
  BOOST_TEST(third.lower() == Rational(6004799503160661) / pow2(54));
  BOOST_TEST(third.upper() == Rational(6004799503160662) / pow2(54));
  BOOST_TEST(third.radius_upper() == pow2(-55));
  BOOST_CHECK_THROW(Interval(Rational(1), 0), std::invalid_argument);
}

BOOST_AUTO_TEST_CASE(exact_predicates_at_rational_endpoints) {
  const Rational tiny = pow2(-300);
  Interval x = Interval::hull(Rational(1, 4), Rational(3, 4), 53);  // exact dyadic endpoints
  BOOST_TEST(x.lower() == Rational(1, 4));
  BOOST_TEST(x.upper() == Rational(3, 4));
  BOOST_TEST(x.radius_upper() == Rational(1, 4));
  BOOST_TEST(x.contains(Rational(1, 4)));
  BOOST_TEST(x.contains(Rational(3, 4)));
  BOOST_TEST(x.contains(Rational(1, 3)));
  BOOST_TEST(!x.contains(Rational(1, 4) - tiny));
  BOOST_TEST(!x.contains(Rational(3, 4) + tiny));
  BOOST_TEST(!x.certainly_less(Rational(3, 4)));
  BOOST_TEST(x.certainly_less(Rational(3, 4) + tiny));
  BOOST_TEST(!x.certainly_greater(Rational(1, 4)));
  BOOST_TEST(x.certainly_greater(Rational(1, 4) - tiny));
  BOOST_TEST(x.subset_of(Rational(1, 4), Rational(3, 4)));
  BOOST_TEST(!x.subset_of(Rational(1, 4) + tiny, Rational(3, 4)));
  BOOST_TEST(!x.subset_of(Rational(1, 4), Rational(3, 4) - tiny));
  BOOST_TEST(!x.contains_zero());

  Interval t(Rational(1, 3), 53);  // non-dyadic: strict enclosure
  BOOST_TEST(t.lower() < Rational(1, 3));
  BOOST_TEST(t.upper() > Rational(1, 3));
  BOOST_TEST(t.contains(Rational(1, 3)));
  BOOST_TEST(!t.subset_of(Rational(1, 3), Rational(1, 3)));
  BOOST_TEST(t.subset_of(t.lower(), t.upper()));
  BOOST_TEST(t.contains(t.lower()));
  BOOST_TEST(t.contains(t.upper()));
  BOOST_TEST(!t.certainly_greater(t.lower()));
  BOOST_TEST(t.certainly_greater(t.lower() - tiny));
  BOOST_TEST(!t.certainly_less(t.upper()));
  BOOST_TEST(t.certainly_less(t.upper() + tiny));

  Interval h = Interval::hull(Rational(-1, 3), Rational(2, 7), 24);
  BOOST_TEST(h.contains(Rational(-1, 3)));
  BOOST_TEST(h.contains(Rational(2, 7)));
  BOOST_TEST(h.contains_zero());
  BOOST_TEST(h.radius_upper() >= (Rational(2, 7) + Rational(1, 3)) / 2);
  BOOST_CHECK_THROW(Interval::hull(Rational(1), Rational(0), 53), std::invalid_argument);
  BOOST_TEST(Interval::hull(Rational(5, 7), Rational(5, 7), 53).contains(Rational(5, 7)));
}

BOOST_AUTO_TEST_CASE(random_hull_contains_its_endpoints) {
  Rng g = make_rng(2);
  for (int i = 0; i < 300; ++i) {
    Rational a = random_rational(g), b = random_rational(g);
    if (a > b) std::swap(a, b);
    unsigned p = random_precision(g);
    Interval h = Interval::hull(a, b, p);
    SEQI_CHECK(h.subset_of(h.lower(), h.upper()), "");
    SEQI_CHECK(h.lower() <= a && b <= h.upper(), seqi::to_string(a) << " " << seqi::to_string(b));
    SEQI_CHECK(h.contains(random_point(g, a, b)), "");
    SEQI_CHECK(tight_around(h, a, b), seqi::to_string(a) << " " << seqi::to_string(b) << " p=" << p);
    SEQI_CHECK(2 * h.radius_upper() >= h.upper() - h.lower(), "");
  }
}

// ---- arithmetic ------------------------------------------------------------------------

BOOST_AUTO_TEST_CASE(random_arithmetic_contains_exact_results_and_is_tight) {
  Rng g = make_rng(3);
  int divisions = 0, zero_divisors = 0;
  for (int i = 0; i < 1500; ++i) {
    Interval a = random_interval(g), b = random_interval(g);
    const unsigned p = std::max(a.precision(), b.precision());
    const Rational al = a.lower(), ah = a.upper(), bl = b.lower(), bh = b.upper();
    const Rational x = random_member(g, a), y = random_member(g, b);
    const std::string ctx = seqi::to_string(a) + " op " + seqi::to_string(b);

    Interval s = a + b, d = a - b, m = a * b, n = -a;
    SEQI_CHECK(s.precision() == p && d.precision() == p && m.precision() == p, ctx);
    SEQI_CHECK(s.contains(x + y), ctx);
    SEQI_CHECK(d.contains(x - y), ctx);
    SEQI_CHECK(m.contains(x * y), ctx);
    SEQI_CHECK(n.contains(-x), ctx);
    SEQI_CHECK(n.lower() == -ah && n.upper() == -al, ctx);
    SEQI_CHECK(tight_around(s, al + bl, ah + bh), "+ " << ctx);
    SEQI_CHECK(tight_around(d, al - bh, ah - bl), "- " << ctx);
    SEQI_CHECK(tight_around(m, min4(al * bl, al * bh, ah * bl, ah * bh), max4(al * bl, al * bh, ah * bl, ah * bh)),
               "* " << ctx);
    if (b.contains_zero()) {
      ++zero_divisors;
      BOOST_CHECK_THROW(a / b, std::domain_error);
    } else {
      ++divisions;
      Interval q = a / b;
      SEQI_CHECK(q.precision() == p, ctx);
      SEQI_CHECK(q.contains(x / y), ctx);
      SEQI_CHECK(tight_around(q, min4(al / bl, al / bh, ah / bl, ah / bh), max4(al / bl, al / bh, ah / bl, ah / bh)),
                 "/ " << ctx);
    }
  }
  BOOST_TEST(divisions > 100);
  BOOST_TEST(zero_divisors > 10);
}

BOOST_AUTO_TEST_CASE(random_mixed_rational_arithmetic_contains_exact_results) {
  Rng g = make_rng(4);
  for (int i = 0; i < 800; ++i) {
    Interval a = random_interval(g);
    Rational q = random_rational(g);
    Rational x = random_member(g, a);
    const std::string ctx = seqi::to_string(a) + " op " + seqi::to_string(q);
    SEQI_CHECK((a + q).contains(x + q), ctx);
    SEQI_CHECK((q + a).contains(q + x), ctx);
    SEQI_CHECK((a - q).contains(x - q), ctx);
    SEQI_CHECK((q - a).contains(q - x), ctx);
    SEQI_CHECK((a * q).contains(x * q), ctx);
    SEQI_CHECK((q * a).contains(q * x), ctx);
    SEQI_CHECK((a + q).precision() == a.precision(), ctx);
    if (q == 0) {
      BOOST_CHECK_THROW(a / q, std::domain_error);
    } else {
      SEQI_CHECK((a / q).contains(x / q), ctx);
    }
    if (a.contains_zero()) {
      BOOST_CHECK_THROW(q / a, std::domain_error);
    } else {
      SEQI_CHECK((q / a).contains(q / x), ctx);
    }
    Interval c = a;
    c += q;
    c *= a;
    c -= Rational(1, 7);
    SEQI_CHECK(c.contains((x + q) * x - Rational(1, 7)), ctx);
  }
}

BOOST_AUTO_TEST_CASE(division_by_interval_containing_zero_throws) {
  Interval one(Rational(1), 53);
  BOOST_CHECK_THROW(one / Interval::hull(Rational(-1), Rational(1), 53), std::domain_error);
  BOOST_CHECK_THROW(one / Interval::hull(Rational(0), Rational(1), 53), std::domain_error);
  BOOST_CHECK_THROW(one / Interval::hull(Rational(-1), Rational(0), 53), std::domain_error);
  BOOST_CHECK_THROW(one / Interval(Rational(0), 53), std::domain_error);
  BOOST_CHECK_THROW(one / Rational(0), std::domain_error);
  BOOST_CHECK_THROW(Rational(1) / Interval::hull(Rational(-1, 3), Rational(1, 3), 53), std::domain_error);
  Interval c = one;
  BOOST_CHECK_THROW(c /= Interval(Rational(0), 53), std::domain_error);
  // A divisor just excluding zero is fine.
  Interval q = one / Interval::hull(pow2(-100), Rational(1), 53);
  BOOST_TEST(q.contains(pow2(100)));
  BOOST_TEST(q.contains(Rational(1)));
}

BOOST_AUTO_TEST_CASE(mixed_precision_takes_the_maximum) {
  Interval a(Rational(1, 3), 53), b(Rational(1, 7), 200);
  BOOST_TEST((a + b).precision() == 200u);
  BOOST_TEST((a * b).precision() == 200u);
  BOOST_TEST((b / a).precision() == 200u);
  BOOST_TEST((a - b).contains(Rational(1, 3) - Rational(1, 7)));
  BOOST_TEST(exp(a).precision() == 53u);
  BOOST_TEST(log(b).precision() == 200u);
}

BOOST_AUTO_TEST_CASE(value_semantics) {
  Interval a(Rational(1, 3), 53);
  Interval b = a;
  BOOST_TEST(b.precision() == 53u);
  BOOST_TEST(b.lower() == a.lower());
  BOOST_TEST(b.upper() == a.upper());
  Interval c(Rational(2), 200);
  c = a;  // precision follows the source
  BOOST_TEST(c.precision() == 53u);
  BOOST_TEST(c.upper() == a.upper());
  Interval d = std::move(c);
  BOOST_TEST(d.precision() == 53u);
  BOOST_TEST(d.contains(Rational(1, 3)));
  c = Interval(Rational(5), 7);  // assign into a moved-from object
  BOOST_TEST(c.contains(Rational(5)));
  std::vector<Interval> v;
  for (int i = 0; i < 20; ++i) v.push_back(Interval(Rational(i, 3), 64));
  for (int i = 0; i < 20; ++i) BOOST_TEST(v[i].contains(Rational(i, 3)));
}

// ---- sum -------------------------------------------------------------------------------

BOOST_AUTO_TEST_CASE(random_sum_contains_exact_sum_and_beats_sequential_addition) {
  Rng g = make_rng(5);
  for (int i = 0; i < 200; ++i) {
    std::size_t n = 1 + below(g, 12);
    std::vector<Interval> xs;
    Rational exact = 0, lo = 0, hi = 0;
    unsigned p = 0;
    for (std::size_t k = 0; k < n; ++k) {
      xs.push_back(random_interval(g));
      exact += random_member(g, xs.back());
      lo += xs.back().lower();
      hi += xs.back().upper();
      p = std::max(p, xs.back().precision());
    }
    Interval s = seqi::sum(xs);
    Interval folded = xs[0];
    for (std::size_t k = 1; k < n; ++k) folded = folded + xs[k];
    SEQI_CHECK(s.precision() == p, p);
    SEQI_CHECK(s.contains(exact), seqi::to_string(s));
    SEQI_CHECK(tight_around(s, lo, hi), seqi::to_string(s));
    SEQI_CHECK(s.subset_of(folded.lower(), folded.upper()), seqi::to_string(s) << " vs " << seqi::to_string(folded));
  }
  BOOST_CHECK_THROW(seqi::sum({}), std::invalid_argument);
  // Exact cancellation gives the exact zero interval.
  Interval z = seqi::sum({Interval(Rational(1), 53), Interval(Rational(-1), 53)});
  BOOST_TEST(z.lower() == 0);
  BOOST_TEST(z.upper() == 0);
  BOOST_TEST(seqi::to_string(z, 3) == "[0.00e+00, 0.00e+00]");
  // Ten tenths.
  std::vector<Interval> tenths(10, Interval(Rational(1, 10), 53));
  Interval one = seqi::sum(tenths);
  BOOST_TEST(one.contains(Rational(1)));
  BOOST_TEST(one.radius_upper() < pow2(-50));
}

// ---- printing --------------------------------------------------------------------------

BOOST_AUTO_TEST_CASE(to_string_rounds_outward) {
  BOOST_TEST(seqi::to_string(Interval(Rational(1, 2), 53), 3) == "[5.00e-01, 5.00e-01]");
  BOOST_TEST(seqi::to_string(Interval(Rational(1, 3), 53)) == "[3.3333333333333331e-01, 3.3333333333333338e-01]");
  BOOST_TEST(seqi::to_string(Interval(Rational(-1, 3), 53), 3) == "[-3.34e-01, -3.33e-01]");
  BOOST_CHECK_THROW(seqi::to_string(Interval(Rational(1), 53), 0), std::invalid_argument);
  Rng g = make_rng(8);
  for (int i = 0; i < 200; ++i) {
    Interval x = random_interval(g);
    int digits = 1 + static_cast<int>(below(g, 25));
    std::string s = seqi::to_string(x, digits);
    SEQI_CHECK(s.size() > 4 && s.front() == '[' && s.back() == ']', s);
    auto comma = s.find(", ");
    auto lo = seqi::parse_rational(s.substr(1, comma - 1));
    auto hi = seqi::parse_rational(s.substr(comma + 2, s.size() - comma - 3));
    SEQI_CHECK(lo && hi, s);
    if (lo && hi) SEQI_CHECK(*lo <= x.lower() && x.upper() <= *hi, s << " " << seqi::to_string(x, 40));
  }
}

BOOST_AUTO_TEST_SUITE_END()
