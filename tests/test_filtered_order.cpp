// increasing_order and filtered_compare (numbers/filtered_order) against the exact order they filter, as CGAL tests
// its filtered predicates: random and near-degenerate values (neighbours one part in 2^60 or
// 2^200 apart, equal values in different forms, huge and tiny magnitudes beyond double range),
// with a printed seed that SEQI_SEED replays. Oracle: std::stable_sort by exact comparison.
#include <boost/test/unit_test.hpp>

#include <algorithm>
#include <cstdint>
#include <numeric>
#include <random>
#include <vector>

#include "seeded_oracles.hpp"
#include "seqi/numbers/filtered_order.hpp"

BOOST_AUTO_TEST_SUITE(test_filtered_order)

using seqi::Integer;
using seqi::Rational;

namespace {

std::vector<std::size_t> exact_order(const std::vector<Rational>& t) {
  std::vector<std::size_t> order(t.size());
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return t[a] < t[b]; });
  return order;
}

// A value near `base`: equal, or off by base / 2^k for k in {52, 53, 60, 200}, or unrelated.
Rational near(std::mt19937_64& g, const Rational& base) {
  static const unsigned shifts[] = {52, 53, 60, 200};
  switch (g() % 4) {
    case 0: return base;
    case 1: return base + base / Rational(Integer(1) << shifts[g() % 4]);
    case 2: return base - base / Rational(Integer(1) << shifts[g() % 4]);
    default: return Rational(static_cast<long>(g() % 2001) - 1000, 1 + static_cast<long>(g() % 999));
  }
}

Rational magnitude(std::mt19937_64& g) {
  static const int exponents[] = {0, 3, -40, 40, -1100, 1100, 2000};
  const int e = exponents[g() % 7];
  const Rational p = e >= 0 ? Rational(Integer(1) << e) : Rational(Integer(1), Integer(1) << -e);
  return p * Rational(static_cast<long>(g() % 2001) - 1000, 1 + static_cast<long>(g() % 97));
}

// n values of trial `trial`: unrelated magnitudes (every third trial) or neighbours of one.
std::vector<Rational> random_values(std::mt19937_64& g, int trial, std::size_t n) {
  std::vector<Rational> t;
  const Rational base = magnitude(g);
  for (std::size_t i = 0; i < n; ++i) t.push_back(trial % 3 == 0 ? magnitude(g) : near(g, base));
  return t;
}

}  // namespace

BOOST_AUTO_TEST_CASE(filtered_order_equals_the_exact_order) {
  const std::uint64_t seed = seqi::testing::base_seed("filtered_order");
  std::mt19937_64 g(seed);
  for (int trial = 0; trial < 300; ++trial) {
    const std::size_t n = 1 + g() % 200;
    std::vector<Rational> t = random_values(g, trial, n);
    // Equal values written differently (k/k) and zeros.
    if (n > 2) t[1] = t[0] * Rational(7) / Rational(7), t[2] = 0;
    BOOST_TEST(seqi::increasing_order(t) == exact_order(t), "seed " << seed << " trial " << trial);
  }
}

// filtered_compare, called in round to nearest as the construction calls it, against the exact
// three-way comparison on the same random and near-degenerate pairs.
BOOST_AUTO_TEST_CASE(filtered_compare_equals_the_exact_comparison) {
  const std::uint64_t seed = seqi::testing::base_seed("filtered_compare");
  std::mt19937_64 g(seed);
  for (int trial = 0; trial < 300; ++trial) {
    std::vector<Rational> t = random_values(g, trial, 40);
    t.push_back(t[0] * Rational(3) / Rational(3));
    t.push_back(0);
    const auto e = seqi::enclosures(t);
    for (std::size_t a = 0; a < t.size(); ++a)
      for (std::size_t b = 0; b < t.size(); ++b) {
        const int exact = t[a] < t[b] ? -1 : t[b] < t[a] ? 1 : 0;
        BOOST_TEST(seqi::filtered_compare(t[a], e[a], t[b], e[b]) == exact,
                   "seed " << seed << " trial " << trial << " pair " << a << ", " << b);
      }
  }
}

BOOST_AUTO_TEST_CASE(filtered_order_of_nothing_and_of_one) {
  BOOST_TEST(seqi::increasing_order({}).empty());
  BOOST_TEST(seqi::increasing_order({Rational(5)}) == std::vector<std::size_t>{0});
}

BOOST_AUTO_TEST_SUITE_END()
