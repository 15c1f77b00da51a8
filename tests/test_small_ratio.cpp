#include <boost/test/unit_test.hpp>

#include <iostream>
#include <random>
#include <string>

#include "seqi/numbers/small_ratio.hpp"
#include "seeded_oracles.hpp"

BOOST_AUTO_TEST_SUITE(test_small_ratio)

using namespace seqi;
using seqi::testing::base_seed;

// Oracle: the exact value p/q built from the digit strings by GMP's own string reading and
// division (not the machine-integer path under test).
Rational oracle(const std::string& p, const std::string& q) {
  std::string pp = p;
  const bool negative = !pp.empty() && pp[0] == '-';
  if (negative) pp.erase(0, 1);
  pp.erase(0, std::min(pp.find_first_not_of('0'), pp.size() - 1));  // no octal prefix
  std::string qq = q;
  qq.erase(0, std::min(qq.find_first_not_of('0'), qq.size() - 1));
  Rational r = Rational(Integer(pp)) / Rational(Integer(qq));
  return negative ? -r : r;
}

BOOST_AUTO_TEST_CASE(small_ratios_read_as_their_exact_value_in_lowest_terms) {
  const std::uint64_t seed = base_seed("small_ratio");
  std::cout << "small_ratio seed " << seed << "\n";
  std::mt19937_64 gen(seed);
  for (int k = 0; k < 20000; ++k) {
    const auto digits = [&](bool nonzero) {
      std::string s;
      const int n = 1 + static_cast<int>(gen() % 18);
      for (int i = 0; i < n; ++i) s += static_cast<char>('0' + gen() % 10);
      if (nonzero && s.find_first_not_of('0') == std::string::npos) s.back() = '7';
      return s;
    };
    std::string p = (gen() % 2 ? "-" : "") + (gen() % 5 == 0 ? std::string("0") : digits(false));
    const bool fraction = gen() % 3 != 0;
    const std::string q = fraction ? digits(true) : "1";
    const std::string text = fraction ? p + "/" + q : p;
    Rational x = gen() % 2 ? Rational(5, 3) : Rational(0);  // a previous value is overwritten
    BOOST_REQUIRE(read_small_ratio(text, x));
    BOOST_TEST(x == oracle(p, q), text);
    BOOST_TEST(x == *parse_rational(text), text);
    const Rational canonical(numerator(x), denominator(x));  // lowest terms, positive denominator
    BOOST_TEST(numerator(x) == numerator(canonical), text);
    BOOST_TEST(denominator(x) == denominator(canonical), text);
  }
}

BOOST_AUTO_TEST_CASE(every_other_text_is_left_to_the_general_reader) {
  for (const char* text : {"", "-", "/", "1/", "/2", "1/0", "-3/00", "1.5", "1e3", " 1", "1 ", "+1", "1/-2", "--1",
                           "1/2/3", "0x10", "1234567890123456789", "1/1234567890123456789", "abc"}) {
    Rational x(2, 7);
    BOOST_TEST(!read_small_ratio(text, x), text);
    BOOST_TEST(x == Rational(2, 7), text);
  }
}

BOOST_AUTO_TEST_SUITE_END()
