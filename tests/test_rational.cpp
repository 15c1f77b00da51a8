#include <boost/test/unit_test.hpp>

#include <random>
#include <string>

#include "seqi/numbers/rational.hpp"

BOOST_AUTO_TEST_SUITE(test_rational)

using seqi::Integer;
using seqi::parse_rational;
using seqi::Rational;

BOOST_AUTO_TEST_CASE(parses_exact_decimal_and_fraction_forms) {
  BOOST_TEST(*seqi::parse_rational("-3/7") == Rational(-3, 7));
  BOOST_TEST(*seqi::parse_rational("2") == Rational(2));
  BOOST_TEST(*seqi::parse_rational("0.125") == Rational(1, 8));
  BOOST_TEST(*seqi::parse_rational("1e-3") == Rational(1, 1000));
  BOOST_TEST(*seqi::parse_rational("-2.5E+2") == Rational(-250));
  BOOST_TEST(*seqi::parse_rational("007") == Rational(7));
  BOOST_TEST(*seqi::parse_rational(".5") == Rational(1, 2));
  BOOST_TEST(*seqi::parse_rational("0.1") == Rational(1, 10));  // not the double 0.1000000000000000055...
  BOOST_TEST(*seqi::parse_rational("1.5/0.5") == Rational(3));
}

BOOST_AUTO_TEST_CASE(rejects_non_rationals_with_reason) {
  std::string why;
  BOOST_TEST(!seqi::parse_rational("1/0", &why));
  BOOST_TEST(why == "zero denominator");
  BOOST_TEST(!seqi::parse_rational("abc", &why));
  BOOST_TEST(!seqi::parse_rational("", &why));
  BOOST_TEST(!seqi::parse_rational("1e", &why));
  BOOST_TEST(!seqi::parse_rational("nan", &why));
  BOOST_TEST(!seqi::parse_rational("1e999999999", &why));
  BOOST_TEST(!seqi::parse_rational("--1", &why));
  BOOST_TEST(!seqi::parse_rational("one", &why));
  BOOST_TEST(why == "not a decimal or p/q rational");
  BOOST_TEST(!seqi::parse_rational("1e1001", &why));
  BOOST_TEST(why.find("exponent too large") == 0);
  BOOST_TEST(*seqi::parse_rational("1e-40") == Rational(1) / Rational(seqi::Integer("10000000000000000000000000000000000000000")));
  BOOST_TEST(*seqi::parse_rational("1e40") == Rational(seqi::Integer("10000000000000000000000000000000000000000")));
}

BOOST_AUTO_TEST_CASE(dyadic_floor_is_largest_power_of_two_below) {
  BOOST_TEST(seqi::dyadic_floor_at_most_one(Rational(3, 10)) == Rational(1, 4));
  BOOST_TEST(seqi::dyadic_floor_at_most_one(Rational(1, 4)) == Rational(1, 4));
  BOOST_TEST(seqi::dyadic_floor_at_most_one(Rational(5)) == Rational(1));
}

// The machine-integer path for "[-]p/q" agrees with the exact value built from GMP integers,
// canonical form included (numerator and denominator coprime, denominator positive): random
// digit strings up to 19 digits (the 19-digit ones take the general path), leading zeros too.
BOOST_AUTO_TEST_CASE(small_fractions_read_as_machine_integers_are_exact_and_canonical) {
  std::mt19937_64 gen(20261130);
  const auto digits = [&](std::size_t max_len) {
    std::string s(1 + gen() % max_len, '0');
    for (char& c : s) c = static_cast<char>('0' + gen() % 10);
    return s;
  };
  // The oracle reads decimal digits one by one (GMP's string constructor takes "0..." as octal).
  const auto decimal = [](const std::string& s) {
    Integer v = 0;
    for (char c : s) v = v * 10 + (c - '0');
    return v;
  };
  for (int trial = 0; trial < 2000; ++trial) {
    const bool negative = gen() % 2;
    const std::string p = digits(19), q = digits(19);
    if (decimal(q) == 0) continue;
    const std::string text = (negative ? "-" : "") + p + (trial % 5 ? "/" + q : "");
    const Rational expected = Rational(decimal(p) * (negative ? -1 : 1)) / Rational(trial % 5 ? decimal(q) : Integer(1));
    const auto got = parse_rational(text);
    BOOST_TEST_REQUIRE(got.has_value(), text);
    BOOST_TEST(*got == expected, text);
    BOOST_TEST(boost::multiprecision::denominator(*got) > 0);
    BOOST_TEST(gcd(boost::multiprecision::numerator(*got), boost::multiprecision::denominator(*got)) == 1, text);
  }
  BOOST_TEST(!parse_rational("3/0").has_value());
  BOOST_TEST(*parse_rational("-6/4") == Rational(-3) / 2);
  BOOST_TEST(boost::multiprecision::numerator(*parse_rational("-6/4")) == -3);
}

// bit_size(p/q) = 1 + (bits of |p|, 0 for p = 0) + (bits of q), q > 0 in lowest terms. Oracle: the
// bits counted by halving, on random numerators and denominators of 0 to 300 bits (both signs)
// and on the edges 0, +-1 and +-2^k, +-(2^k - 1).
BOOST_AUTO_TEST_CASE(bit_size_counts_the_bits_of_numerator_and_denominator) {
  auto bits = [](Integer v) {
    std::size_t n = 0;
    for (v = abs(v); v != 0; v /= 2) ++n;
    return n;
  };
  auto expect = [&](const Rational& x) {
    return 1 + bits(boost::multiprecision::numerator(x)) + bits(boost::multiprecision::denominator(x));
  };
  std::mt19937_64 gen(20261203);
  auto random_integer = [&](unsigned max_bits) {
    const unsigned b = static_cast<unsigned>(gen() % (max_bits + 1));
    Integer v = 0;
    for (unsigned k = 0; k < b; k += 32) v = (v << 32) + (gen() & 0xffffffffu);
    return v >> (b % 32 ? 32 - b % 32 : 0);
  };
  for (int trial = 0; trial < 2000; ++trial) {
    Integer p = random_integer(300), q = random_integer(300);
    if (q == 0) q = 1;
    if (gen() % 2) p = -p;
    const Rational x(p, q);
    BOOST_TEST(seqi::bit_size(x) == expect(x), "trial " << trial << ": " << x);
  }
  BOOST_TEST(seqi::bit_size(Rational(0)) == 2u);
  for (unsigned k = 1; k < 200; k += 7)
    for (const Integer& v : {Integer(1) << k, (Integer(1) << k) - 1, -(Integer(1) << k)}) {
      BOOST_TEST(seqi::bit_size(Rational(v)) == 1 + (v < 0 ? k + 1 : (v == (Integer(1) << k) ? k + 1 : k)) + 1);
      BOOST_TEST(seqi::bit_size(Rational(Integer(1), abs(v))) == 1 + 1 + bits(v));
    }
}

BOOST_AUTO_TEST_SUITE_END()
