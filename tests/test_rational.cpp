#define BOOST_TEST_MODULE rational
#include <boost/test/unit_test.hpp>

#include "seqi/numbers/rational.hpp"

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
