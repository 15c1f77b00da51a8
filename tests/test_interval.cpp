#define BOOST_TEST_MODULE interval
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

using seqi::Integer;
using seqi::Interval;
using seqi::Rational;

// ---- randomised-test scaffolding (Arb style: print the seed, replay with SEQI_SEED) ----

namespace {

std::uint64_t base_seed() {
  static const std::uint64_t seed = [] {
    if (const char* s = std::getenv("SEQI_SEED"); s != nullptr && *s != '\0')
      return static_cast<std::uint64_t>(std::stoull(s));
    std::random_device rd;
    return (static_cast<std::uint64_t>(rd()) << 32) ^ rd();
  }();
  return seed;
}

struct PrintSeed {
  PrintSeed() {
    std::cout << "test_interval: seed " << base_seed() << " (replay with SEQI_SEED=" << base_seed() << ")"
              << std::endl;
  }
};
BOOST_TEST_GLOBAL_FIXTURE(PrintSeed);

using Rng = std::mt19937_64;

// Each test case gets its own stream so a single case replays on its own (--run_test=...).
Rng make_rng(std::uint64_t tag) { return Rng(base_seed() ^ (tag * 0x9E3779B97F4A7C15ULL)); }

// A failed check reports the seed and the offending values; messages are only built on failure.
#define SEQI_CHECK(cond, msg)                                                              \
  do {                                                                                     \
    if (!(cond)) BOOST_ERROR("check failed: " #cond " | seed " << base_seed() << " | " << msg); \
  } while (0)

std::uint64_t below(Rng& g, std::uint64_t n) { return std::uniform_int_distribution<std::uint64_t>(0, n - 1)(g); }

Rational pow2(long e) {
  Rational r = 1;
  Integer p = 1;
  p <<= static_cast<unsigned>(e >= 0 ? e : -e);
  return e >= 0 ? Rational(p) : r / Rational(p);
}

Integer random_integer(Rng& g, unsigned bits) {
  Integer x = 0;
  for (unsigned done = 0; done < bits; done += 64) x = (x << 64) | Integer(g());
  unsigned total = ((bits + 63) / 64) * 64;
  return x >> (total - bits);
}

// Random exact rational: varied numerator/denominator sizes, sign and binary scale,
// plus special values.
Rational random_rational(Rng& g) {
  switch (below(g, 10)) {
    case 0: return Rational(0);
    case 1: return Rational(below(g, 2) ? 1 : -1);
    case 2: return Rational(below(g, 2) ? 1 : -1, 3);
    default: break;
  }
  Integer num = random_integer(g, 1 + static_cast<unsigned>(below(g, 80)));
  Integer den = random_integer(g, 1 + static_cast<unsigned>(below(g, 80))) + 1;
  Rational r = Rational(num) / Rational(den);
  if (below(g, 2)) r = -r;
  if (below(g, 3) == 0) r *= pow2(static_cast<long>(below(g, 41)) - 20);
  return r;
}

Rational random_positive(Rng& g) {
  Rational r;
  do r = abs(random_rational(g));
  while (r == 0);
  return r;
}

// Random point of [lo, hi], endpoints included with positive probability.
Rational random_point(Rng& g, const Rational& lo, const Rational& hi) {
  switch (below(g, 6)) {
    case 0: return lo;
    case 1: return hi;
    default: break;
  }
  Integer den = random_integer(g, 1 + static_cast<unsigned>(below(g, 40))) + 1;
  Integer num = random_integer(g, 64) % (den + 1);
  return lo + (hi - lo) * Rational(num) / Rational(den);
}

// A point of the interval actually represented (its exact float endpoints).
Rational random_member(Rng& g, const Interval& x) { return random_point(g, x.lower(), x.upper()); }

const unsigned kPrecisions[] = {1, 2, 3, 7, 24, 53, 64, 113, 200};
unsigned random_precision(Rng& g) { return kPrecisions[below(g, std::size(kPrecisions))]; }

Interval random_interval(Rng& g) {
  unsigned p = random_precision(g);
  Rational a = random_rational(g);
  switch (below(g, 4)) {
    case 0: return Interval(a, p);  // point enclosure
    case 1: return Interval::hull(a, a + abs(random_rational(g)) * pow2(-40), p);  // narrow
    default: {
      Rational b = random_rational(g);
      return a <= b ? Interval::hull(a, b, p) : Interval::hull(b, a, p);
    }
  }
}

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
