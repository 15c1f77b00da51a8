#include <boost/test/unit_test.hpp>

#include <chrono>
#include <cstdlib>
#include <iostream>
#include <random>
#include <string>
#include <vector>

#include "seqi/certification/softmax_bounds.hpp"

#include <boost/multiprecision/mpfr.hpp>

BOOST_AUTO_TEST_SUITE(test_softmax_bounds)

using namespace seqi;

namespace {

namespace bmp = boost::multiprecision;
// Independent references: 200 and 151 decimal digits (~664 and ~502 bits).
using Hp = bmp::number<bmp::mpfr_float_backend<200>, bmp::et_off>;
using Hp500 = bmp::number<bmp::mpfr_float_backend<151>, bmp::et_off>;

Rational q(long a, long b = 1) { return Rational(a) / Rational(b); }

template <class F>
F to_mp(const Rational& x) {
  return F(Integer(numerator(x))) / F(Integer(denominator(x)));
}

std::uint64_t base_seed(const char* who) {
  const char* s = std::getenv("SEQI_SEED");
  const std::uint64_t seed = s ? std::strtoull(s, nullptr, 10) : 20260517;
  std::cout << "softmax_bounds/" << who << ": SEQI_SEED=" << seed << " to replay\n";
  return seed;
}

// G / ln((n - 1) D / df) in high precision.
Hp tau_ref(std::size_t n, const Rational& G, const Rational& D, const Rational& df) {
  return to_mp<Hp>(G) / log(Hp(static_cast<long>(n - 1)) * to_mp<Hp>(D) / to_mp<Hp>(df));
}

}  // namespace

// ---------------------------------------------------------------------------------------------
// certified_tau_star
// ---------------------------------------------------------------------------------------------

BOOST_AUTO_TEST_CASE(tau_star_hand_case) {
  const auto t = certified_tau_star({3}, {Rational(2)}, {Rational(5)}, q(1, 2), 128);
  BOOST_TEST_REQUIRE(!t.unbounded);
  BOOST_TEST(t.binding == 0u);
  BOOST_TEST_REQUIRE(t.per_sequence.size() == 1u);
  BOOST_TEST_REQUIRE(t.per_sequence[0].has_value());
  const Hp ref = Hp(2) / log(Hp(20));  // (3-1)*5/(1/2) = 20
  const Hp lower = to_mp<Hp>(t.lower);
  BOOST_TEST(t.lower > 0);
  BOOST_TEST((lower <= ref), "lower " << to_string(t.lower) << " vs 2/ln 20 = " << ref.str(30));
  BOOST_TEST((lower > ref - Hp(1) / 100000), "lower " << to_string(t.lower) << " too loose");
  // The unrounded per-sequence bound is also below tau*, and above the reported (rounded) one.
  BOOST_TEST((to_mp<Hp>(*t.per_sequence[0]) <= ref));
  BOOST_TEST(t.lower <= *t.per_sequence[0]);
  BOOST_TEST((to_mp<Hp>(*t.per_sequence[0]) > ref - Hp(1) / Hp("1e30")));
}

BOOST_AUTO_TEST_CASE(tau_star_unconstrained_sequences) {
  // (n-1) D <= df: any tau works (nullopt); n = 1 (G = nullopt) likewise.
  {
    const auto t = certified_tau_star({3, 3}, {Rational(2), Rational(1)}, {Rational(5), q(1, 4)}, q(1, 2), 128);
    BOOST_TEST_REQUIRE(t.per_sequence.size() == 2u);
    BOOST_TEST(t.per_sequence[0].has_value());
    BOOST_TEST(!t.per_sequence[1].has_value());  // 2 * 1/4 = 1/2 <= df exactly
    BOOST_TEST(!t.unbounded);
    BOOST_TEST(t.binding == 0u);
  }
  {
    const auto t = certified_tau_star({3, 1, 2, 5}, {Rational(1), std::nullopt, q(1, 3), q(1, 100)},
                                      {q(1, 4), Rational(0), q(1, 3), Rational(0)}, q(1, 2), 128);
    BOOST_TEST(t.unbounded);
    BOOST_TEST_REQUIRE(t.per_sequence.size() == 4u);
    for (const auto& p : t.per_sequence) BOOST_TEST(!p.has_value());
  }
  {
    const auto t = certified_tau_star({}, {}, {}, q(1, 2), 128);
    BOOST_TEST(t.unbounded);
    BOOST_TEST(t.per_sequence.empty());
  }
  // Just above the threshold: (n-1) D / df = 1 + 1/1000, a huge but finite tau*.
  {
    const auto t = certified_tau_star({2}, {Rational(1)}, {q(1001, 2000)}, q(1, 2), 128);
    BOOST_TEST_REQUIRE(!t.unbounded);
    const Hp ref = tau_ref(2, 1, q(1001, 2000), q(1, 2));
    BOOST_TEST((to_mp<Hp>(t.lower) <= ref));
    BOOST_TEST((to_mp<Hp>(t.lower) > ref * (1 - Hp(1) / 50000)));
  }
}

BOOST_AUTO_TEST_CASE(tau_star_binding_is_minimizing_sequence) {
  const std::vector<std::size_t> n{3, 4, 2, 5, 1, 6};
  const std::vector<std::optional<Rational>> G{Rational(2), q(1, 2), Rational(3), Rational(1), std::nullopt, q(7, 3)};
  const std::vector<Rational> D{Rational(5), Rational(2), Rational(100), Rational(1), Rational(0), q(1, 100)};
  const Rational df = q(1, 8);
  const auto t = certified_tau_star(n, G, D, df, 128);
  BOOST_TEST_REQUIRE(!t.unbounded);
  BOOST_TEST_REQUIRE(t.per_sequence.size() == n.size());
  std::size_t arg = n.size();
  Hp best;
  for (std::size_t j = 0; j < n.size(); ++j) {
    const bool constrained = n[j] > 1 && Rational(static_cast<long>(n[j] - 1)) * D[j] > df;
    BOOST_TEST(t.per_sequence[j].has_value() == constrained, "sequence " << j);
    if (!constrained) continue;
    const Hp ref = tau_ref(n[j], *G[j], D[j], df);
    BOOST_TEST((to_mp<Hp>(*t.per_sequence[j]) <= ref), "sequence " << j);
    BOOST_TEST((to_mp<Hp>(*t.per_sequence[j]) > ref * (1 - Hp("1e-30"))), "sequence " << j);
    if (arg == n.size() || ref < best) arg = j, best = ref;
  }
  BOOST_TEST(t.binding == arg);
  BOOST_TEST((to_mp<Hp>(t.lower) <= best));
  BOOST_TEST((to_mp<Hp>(t.lower) > best * (1 - Hp(2) / 100000)));
  // Permuting the sequences moves the binding index with them.
  const std::vector<std::size_t> n2{n[arg], n[0]};
  const auto t2 = certified_tau_star(n2, {G[arg], G[0]}, {D[arg], D[0]}, df, 128);
  BOOST_TEST(t2.binding == 0u);
  const auto t3 = certified_tau_star({n[0], n[arg]}, {G[0], G[arg]}, {D[0], D[arg]}, df, 128);
  BOOST_TEST(t3.binding == (arg == 0 ? 0u : 1u));
}

// ---------------------------------------------------------------------------------------------
// collapse_error_bound
// ---------------------------------------------------------------------------------------------

BOOST_AUTO_TEST_CASE(collapse_error_bound_is_a_tight_upper_bound) {
  struct Case {
    std::size_t n;
    Rational G, D, tau;
  };
  std::vector<Case> cases{{3, 2, 5, q(1, 2)},       {10, q(1, 3), q(7, 2), q(1, 10)}, {2, 1, 1, 1},
                          {100, 5, 1000, q(3, 7)},  {5, q(1, 1000), 2, 1},            {2, 1, q(1, 3), q(1, 1000)},
                          {7, 2047, q(5, 3), 1},    {4, q(3, 1000), q(9, 7), q(1, 1000000)}};
  const auto seed = base_seed("collapse bound");
  std::mt19937_64 eng(seed);
  auto in = [&](long lo, long hi) { return std::uniform_int_distribution<long>(lo, hi)(eng); };
  for (int k = 0; k < 40; ++k)
    cases.push_back({static_cast<std::size_t>(in(2, 50)), Rational(in(1, 100), in(1, 30)),
                     Rational(in(1, 1000), in(1, 30)), Rational(in(1, 50), in(1, 30))});
  for (const auto& c : cases) {
    BOOST_TEST_CONTEXT("n=" << c.n << " G=" << c.G << " D=" << c.D << " tau=" << c.tau) {
      for (unsigned prec : {64u, 128u}) {
        const Rational bound = collapse_error_bound(c.n, c.G, c.D, c.tau, prec);
        const Hp ref = Hp(static_cast<long>(c.n - 1)) * exp(-to_mp<Hp>(c.G) / to_mp<Hp>(c.tau)) * to_mp<Hp>(c.D);
        const Hp b = to_mp<Hp>(bound);
        BOOST_TEST((b >= ref), "bound " << b.str(20) << " < " << ref.str(20));
        if (c.G / c.tau <= 2048)
          BOOST_TEST((b <= ref * (1 + Hp("1e-10"))), "bound " << b.str(20) << " vs " << ref.str(20));
      }
    }
  }
  // Beyond the exponent floor the bound stays a small rational above the true value.
  const Rational huge = collapse_error_bound(3, 1000000, 5, q(1, 1000), 128);
  const Hp ref_floor = Hp(2) * exp(Hp(-2048)) * Hp(5);
  BOOST_TEST(huge > 0);
  BOOST_TEST((to_mp<Hp>(huge) <= ref_floor * (1 + Hp("1e-10"))));
  BOOST_TEST(bit_size(huge) < 100000u);
  // Degenerate inputs.
  BOOST_TEST(collapse_error_bound(1, 2, 5, q(1, 2), 128) == 0);
  BOOST_TEST(collapse_error_bound(4, 2, 0, q(1, 2), 128) == 0);
}

// ---------------------------------------------------------------------------------------------
// softmax_average_enclosure
// ---------------------------------------------------------------------------------------------

BOOST_AUTO_TEST_CASE(softmax_enclosure_equal_scores_is_mean) {
  for (unsigned prec : {53u, 128u}) {
    const std::vector<Rational> z{q(1, 3), q(-5, 7), 2, q(11, 13)};
    const Rational mean = (z[0] + z[1] + z[2] + z[3]) / 4;
    for (const Rational& s : {Rational(0), q(-7, 3), Rational(1000)}) {
      const std::vector<Rational> scores(z.size(), s);
      const auto [lo, hi] = softmax_average_enclosure(scores, z, q(1, 10), prec);
      BOOST_TEST(lo <= mean);
      BOOST_TEST(mean <= hi);
      BOOST_TEST(hi - lo < Rational(1, 1000000));
    }
  }
  // A single token: its own value.
  const auto [lo, hi] = softmax_average_enclosure({q(3, 2)}, {q(-2, 9)}, q(1, 3), 128);
  BOOST_TEST(lo <= q(-2, 9));
  BOOST_TEST(q(-2, 9) <= hi);
}

BOOST_AUTO_TEST_CASE(softmax_enclosure_contains_500_bit_reference) {
  const auto seed = base_seed("softmax enclosure");
  std::mt19937_64 eng(seed);
  auto in = [&](long lo, long hi) { return std::uniform_int_distribution<long>(lo, hi)(eng); };
  int checked = 0;
  for (int k = 0; k < 300; ++k) {
    const std::size_t n = static_cast<std::size_t>(in(2, 9));
    std::vector<Rational> scores, z;
    for (std::size_t l = 0; l < n; ++l) {
      scores.emplace_back(in(-60, 60), in(1, 12));
      z.emplace_back(in(-100, 100), in(1, 17));
    }
    if (k % 5 == 0) scores[1] = scores[0];  // ties at and below the best
    const Rational tau(in(1, 40), in(1, 20));
    const unsigned prec = k % 3 == 0 ? 64u : k % 3 == 1 ? 128u : 256u;
    BOOST_TEST_CONTEXT("case " << k << " (seed " << seed << "), n=" << n << " tau=" << tau << " prec=" << prec) {
      const auto [lo, hi] = softmax_average_enclosure(scores, z, tau, prec);
      // Independent reference: sum e^{s_l/tau} z_l / sum e^{s_l/tau}, shifted by the max score.
      Hp500 smax = to_mp<Hp500>(scores[0]);
      for (const auto& s : scores) smax = std::max(smax, to_mp<Hp500>(s));
      Hp500 num = 0, den = 0, zmax = 0;
      for (std::size_t l = 0; l < n; ++l) {
        const Hp500 w = exp((to_mp<Hp500>(scores[l]) - smax) / to_mp<Hp500>(tau));
        num += w * to_mp<Hp500>(z[l]);
        den += w;
        zmax = std::max(zmax, abs(to_mp<Hp500>(z[l])));
      }
      const Hp500 ref = num / den;
      const Hp500 slack = Hp500("1e-140") * (1 + zmax);  // the reference's own error, generously
      const Hp500 L = to_mp<Hp500>(lo), H = to_mp<Hp500>(hi);
      BOOST_TEST((L <= ref + slack), "lo " << L.str(40) << " > ref " << ref.str(40));
      BOOST_TEST((ref - slack <= H), "hi " << H.str(40) << " < ref " << ref.str(40));
      // And the enclosure is tight, so containment means something.
      const Hp500 tol = (prec == 64 ? Hp500("1e-12") : Hp500("1e-30")) * (1 + zmax);
      BOOST_TEST((H - L <= tol), "width " << (H - L).str(10));
      ++checked;
    }
  }
  BOOST_TEST(checked == 300);
}

BOOST_AUTO_TEST_CASE(softmax_enclosure_near_and_beyond_exponent_floor) {
  // Score gaps / tau of about -2047, -2049 and -10^9 (10^6 apart at tau = 1/1000).
  const std::vector<Rational> z{q(5, 3), q(-7, 2), 9};
  for (const Rational& gap : {Rational(2047), Rational(2049), Rational(1000000) * 1000}) {
    BOOST_TEST_CONTEXT("gap/tau = " << gap) {
      const Rational tau = q(1, 1000);
      const std::vector<Rational> scores{Rational(0), -gap * tau, -2 * gap * tau};
      const auto start = std::chrono::steady_clock::now();
      const auto [lo, hi] = softmax_average_enclosure(scores, z, tau, 128);
      const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
      BOOST_TEST(secs < 1.0);
      // Contains the true value z0 + (tiny) * ((z1 - z0) + ...): here below z0, above z0 - e^-2000.
      const Hp500 ref = [&] {
        const Hp500 w1 = exp(-to_mp<Hp500>(gap)), w2 = exp(-2 * to_mp<Hp500>(gap));
        return (to_mp<Hp500>(z[0]) + w1 * to_mp<Hp500>(z[1]) + w2 * to_mp<Hp500>(z[2])) / (1 + w1 + w2);
      }();
      BOOST_TEST((to_mp<Hp500>(lo) <= ref));
      BOOST_TEST((ref <= to_mp<Hp500>(hi)));
      BOOST_TEST(hi - lo < Rational(1, 1000000));
      BOOST_TEST(bit_size(lo) + bit_size(hi) < 100000u);
    }
  }
  // The brief's case: scores 10^6 apart, tau = 1/1000, best not first, several tokens.
  {
    std::vector<Rational> scores, zs;
    for (long l = 0; l < 40; ++l) {
      scores.push_back(Rational(-1000000) * ((l * 7) % 40));
      zs.emplace_back(l * 3 - 50, 7);
    }
    std::size_t best = 0;
    for (std::size_t l = 0; l < scores.size(); ++l)
      if (scores[l] > scores[best]) best = l;
    const auto start = std::chrono::steady_clock::now();
    const auto [lo, hi] = softmax_average_enclosure(scores, zs, q(1, 1000), 128);
    const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    BOOST_TEST(secs < 1.0);
    BOOST_TEST(lo <= zs[best]);
    BOOST_TEST(zs[best] <= hi);
    BOOST_TEST(hi - lo < Rational(1, 1000000));
  }
  // Two tied best scores far above the rest: the average of the two.
  {
    const std::vector<Rational> scores{Rational(-1000000), Rational(0), Rational(-2000000), Rational(0)};
    const std::vector<Rational> zs{100, q(1, 3), -100, q(2, 3)};
    const auto [lo, hi] = softmax_average_enclosure(scores, zs, q(1, 1000), 128);
    BOOST_TEST(lo <= q(1, 2));
    BOOST_TEST(q(1, 2) <= hi);
    BOOST_TEST(hi - lo < Rational(1, 1000000));
  }
}

// ---------------------------------------------------------------------------------------------
// round_down_significant
// ---------------------------------------------------------------------------------------------

namespace {

// Number of significant decimal digits of a positive rational with a terminating expansion;
// -1 when the expansion does not terminate.
int significant_digits(Rational x) {
  int guard = 0;
  while (denominator(x) != 1) {
    x *= 10;
    if (++guard > 10000) return -1;
  }
  Integer m = numerator(x);
  while (m % 10 == 0) m /= 10;
  return static_cast<int>(m.str().size());
}

}  // namespace

BOOST_AUTO_TEST_CASE(round_down_significant_properties) {
  std::vector<Rational> xs{q(1, 3),       q(2, 3),        Rational(123456789), Rational(1),          Rational(1000000),
                           q(1, 1000000), q(999999, 1000000), q(123456789, 1000000000000LL), q(22, 7), Rational(10),
                           q(1, 7) / Rational(Integer(1) << 200),  Rational(Integer(1) << 200) / 3, q(99999, 10)};
  const auto seed = base_seed("round down");
  std::mt19937_64 eng(seed);
  auto in = [&](long lo, long hi) { return std::uniform_int_distribution<long>(lo, hi)(eng); };
  for (int k = 0; k < 200; ++k) xs.emplace_back(in(1, 1000000000), in(1, 1000000000));
  for (const Rational& x : xs) {
    for (int digits : {1, 2, 6, 10}) {
      BOOST_TEST_CONTEXT("x = " << x << ", digits = " << digits) {
        const Rational r = round_down_significant(x, digits);
        BOOST_TEST(r > 0);
        BOOST_TEST(r <= x);
        const int sig = significant_digits(r);
        BOOST_TEST(sig >= 1);
        BOOST_TEST(sig <= digits);
        Rational ulp = 1;
        for (int i = 1; i < digits; ++i) ulp /= 10;
        BOOST_TEST(x - r < ulp * x);
      }
    }
  }
  // Exact values with few digits are returned unchanged.
  BOOST_TEST(round_down_significant(q(125, 1000), 6) == q(1, 8));
  BOOST_TEST(round_down_significant(Rational(1000000), 1) == Rational(1000000));
  BOOST_TEST(round_down_significant(q(2, 3), 6) == q(666666, 1000000));
  BOOST_TEST(round_down_significant(Rational(123456789), 6) == Rational(123456000));
  BOOST_TEST(round_down_significant(q(999999, 1000), 3) == Rational(999));
}

// ---------------------------------------------------------------------------------------------
// (n-1) D / df just above 1: tau* is huge but finite.
// ---------------------------------------------------------------------------------------------

BOOST_AUTO_TEST_CASE(tau_star_ratio_close_to_one) {
  // 1 + 10^-9 at 53 bits: ln is still resolved, tau* = 1 / ln(1 + 1e-9) ~ 1e9.
  const Rational D = q(1, 2) * (1 + q(1, 1000000000));
  const auto t = certified_tau_star({2}, {Rational(1)}, {D}, q(1, 2), 53);
  BOOST_TEST_REQUIRE(!t.unbounded);
  const Hp ref = tau_ref(2, 1, D, q(1, 2));
  BOOST_TEST((to_mp<Hp>(t.lower) <= ref));
  BOOST_TEST((to_mp<Hp>(t.lower) > ref * (1 - Hp(2) / 100000)));
}

// X = (n-1) D / df above 1 by less than the working precision (1 + 2^-200 at 128 bits):
// the bound must still be a finite positive rational (regression: this used to throw).
BOOST_AUTO_TEST_CASE(tau_star_ratio_within_precision_of_one) {
  const Rational tiny = Rational(1) / Rational(Integer(1) << 200);
  const Rational D = q(1, 2) * (1 + tiny);
  TauStarBound t;
  BOOST_REQUIRE_NO_THROW(t = certified_tau_star({2}, {Rational(1)}, {D}, q(1, 2), 128));
  BOOST_TEST_REQUIRE(!t.unbounded);
  BOOST_TEST(t.lower > 0);
  // tau* = 1 / ln(1 + 2^-200) > 2^200 - 1: any positive lower bound <= that is correct.
  BOOST_TEST((to_mp<Hp>(t.lower) <= tau_ref(2, 1, D, q(1, 2))));
}

BOOST_AUTO_TEST_SUITE_END()
