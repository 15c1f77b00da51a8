// exact_sum (pairwise summation) against the left-to-right sum written here, on seeded random
// rationals with unrelated denominators (every length 0..64 and a few long ones) and on the
// edge cases: empty, one term, cancellation to 0. SEQI_SEED=<seed> replays.
#include <boost/test/unit_test.hpp>

#include <random>
#include <vector>

#include "seeded_oracles.hpp"
#include "seqi/numbers/exact_sum.hpp"

BOOST_AUTO_TEST_SUITE(test_exact_sum)

using namespace seqi;

namespace {

Rational left_to_right(const std::vector<Rational>& terms) {
  Rational s = 0;
  for (const auto& t : terms) s += t;
  return s;
}

std::vector<Rational> random_terms(std::mt19937_64& g, std::size_t n) {
  std::vector<Rational> terms;
  for (std::size_t i = 0; i < n; ++i) {
    const Integer num = Integer(static_cast<long long>(g() % 2000001)) - 1000000;
    const Integer den = Integer(static_cast<long long>(1 + g() % 1000003)) * (Integer(1) << (g() % 70));
    terms.emplace_back(num, den);
  }
  return terms;
}

}  // namespace

BOOST_AUTO_TEST_CASE(pairwise_sum_equals_the_left_to_right_sum) {
  const std::uint64_t seed = testing::base_seed("exact_sum");
  std::mt19937_64 g(seed);
  for (std::size_t n : {0, 1, 2, 3, 5, 8, 13, 64, 1000, 1025}) {
    const auto terms = random_terms(g, n);
    BOOST_TEST(exact_sum(terms) == left_to_right(terms), "seed " << seed << ", " << n << " terms");
  }
  for (std::size_t n = 0; n <= 64; ++n) {
    const auto terms = random_terms(g, n);
    BOOST_TEST(exact_sum(terms) == left_to_right(terms), "seed " << seed << ", " << n << " terms");
  }
}

BOOST_AUTO_TEST_CASE(edge_cases) {
  BOOST_TEST(exact_sum({}) == Rational(0));
  BOOST_TEST(exact_sum({Rational(3, 7)}) == Rational(3, 7));
  BOOST_TEST(exact_sum({Rational(1, 3), Rational(-1, 3), Rational(5, 9), Rational(-5, 9), Rational(0)}) == Rational(0));
  BOOST_TEST(exact_sum({Rational(1, 2), Rational(1, 3), Rational(1, 6)}) == Rational(1));
}

BOOST_AUTO_TEST_SUITE_END()
