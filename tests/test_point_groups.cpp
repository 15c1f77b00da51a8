// Residues mod 2^61-1 and the hashing searches built on them (building in
// near-linear time), each against an oracle written from the definition here.
#include <boost/test/unit_test.hpp>

#include <algorithm>

#include "seeded_oracles.hpp"
#include "seqi/construction/separating_shift.hpp"
#include "seqi/core/rng.hpp"
#include "seqi/core/point_groups.hpp"
#include "seqi/numbers/residue.hpp"

BOOST_AUTO_TEST_SUITE(test_point_groups)

using namespace seqi;

namespace {

const Integer P = Integer(kResidueModulus);

// a/b mod p from the definition: a * b^(p-2) mod p, in big integers.
std::optional<std::uint64_t> residue_oracle(const Rational& x) {
  Integer a = numerator(x) % P, b = denominator(x) % P;
  if (a < 0) a += P;
  if (b == 0) return std::nullopt;
  const Integer r = (a * boost::multiprecision::powm(b, P - 2, P)) % P;
  return static_cast<std::uint64_t>(r);
}

Rational random_rational(Rng& rng, const Integer& range) {
  Integer den = abs(rng.integer_in(range)) + 1;
  return Rational(rng.integer_in(range * range * range), den);
}

// Points with coordinates from a tiny set, so that many points repeat.
std::vector<Point> repeating_points(Rng& rng, std::size_t n, int d) {
  std::vector<Point> pts;
  for (std::size_t i = 0; i < n; ++i) {
    Point x(d);
    for (int c = 0; c < d; ++c) x[c] = Rational(rng.integer_in(1), Integer(3));
    pts.push_back(x);
  }
  return pts;
}

bool lex_before(const Point& a, const Point& b) {
  return std::lexicographical_compare(a.begin(), a.end(), b.begin(), b.end());
}

// Groups of equal points by pairwise comparison, ordered by their point.
std::vector<std::vector<std::size_t>> groups_oracle(const std::vector<Point>& pts) {
  std::vector<std::vector<std::size_t>> groups;
  std::vector<bool> taken(pts.size(), false);
  for (std::size_t i = 0; i < pts.size(); ++i) {
    if (taken[i]) continue;
    std::vector<std::size_t> g{i};
    for (std::size_t j = i + 1; j < pts.size(); ++j)
      if (pts[j] == pts[i]) g.push_back(j), taken[j] = true;
    if (g.size() >= 2) groups.push_back(g);
  }
  std::sort(groups.begin(), groups.end(), [&](const auto& a, const auto& b) { return lex_before(pts[a[0]], pts[b[0]]); });
  return groups;
}

bool pairwise_distinct(const std::vector<Point>& pts) {
  for (std::size_t i = 0; i < pts.size(); ++i)
    for (std::size_t j = i + 1; j < pts.size(); ++j)
      if (pts[i] == pts[j]) return false;
  return true;
}

}  // namespace

BOOST_AUTO_TEST_CASE(residues_are_the_ring_map_to_integers_mod_p) {
  Rng rng(testing::base_seed("point_groups"));
  for (int k = 0; k < 300; ++k) {
    const Integer range = Integer(1) << (1 + k % 90);
    const Rational a = random_rational(rng, range), b = random_rational(rng, range);
    BOOST_TEST_REQUIRE(residue(a).has_value());
    BOOST_TEST(*residue(a) == *residue_oracle(a));
    BOOST_TEST(*residue(a + b) == add_mod(*residue(a), *residue(b)));
    BOOST_TEST(*residue(a * b) == mul_mod(*residue(a), *residue(b)));
    if (a != 0) BOOST_TEST(mul_mod(*residue(a), inverse_mod(*residue(a))) == 1u);
  }
  BOOST_TEST(*residue(Rational(P)) == 0u);
  BOOST_TEST(*residue(Rational(-1)) == kResidueModulus - 1);
  BOOST_TEST(!residue(Rational(Integer(1), P * 3)).has_value());
  BOOST_TEST(mul_mod(kResidueModulus - 1, kResidueModulus - 1) == 1u);
}

BOOST_AUTO_TEST_CASE(weighted_residue_is_the_weighted_sum_of_residues) {
  Rng rng(testing::base_seed("point_groups") + 1);
  const auto w = residue_weights(7);
  BOOST_TEST(w == residue_weights(7));  // a function of the dimension only
  for (int k = 0; k < 100; ++k) {
    Point x(7);
    for (int c = 0; c < 7; ++c) x[c] = k % 3 == 0 && c % 2 ? Rational(0) : random_rational(rng, Integer(1) << (1 + k % 70));
    std::uint64_t expect = 0;
    for (int c = 0; c < 7; ++c) expect = add_mod(expect, mul_mod(w[static_cast<std::size_t>(c)], *residue_oracle(x[c])));
    BOOST_TEST(*weighted_residue(w, x) == expect);
  }
  Point bad = Point::Zero(7);
  bad[3] = Rational(Integer(2), P);
  BOOST_TEST(!weighted_residue(w, bad).has_value());
}

BOOST_AUTO_TEST_CASE(equal_key_runs_lists_repeated_keys_in_key_order) {
  const auto runs = equal_key_runs({5, 1, 5, 2, 1, 5, 9});
  BOOST_TEST(runs.size() == 2u);
  BOOST_TEST((runs[0] == std::vector<std::size_t>{1, 4}));
  BOOST_TEST((runs[1] == std::vector<std::size_t>{0, 2, 5}));
  BOOST_TEST(equal_key_runs({}).empty());
}

BOOST_AUTO_TEST_CASE(equal_point_groups_match_pairwise_comparison) {
  Rng rng(testing::base_seed("point_groups") + 2);
  for (int k = 0; k < 60; ++k) {
    auto pts = repeating_points(rng, 1 + static_cast<std::size_t>(k) * 3, 1 + k % 4);
    if (k % 10 == 9) pts[pts.size() / 2][0] = Rational(Integer(1), P);  // no residue: exact fallback
    BOOST_TEST((equal_point_groups(pts) == groups_oracle(pts)), "case " << k);
  }
  BOOST_TEST(equal_point_groups({}).empty());
}

BOOST_AUTO_TEST_CASE(separating_shift_decides_distinctness_exactly) {
  Rng rng(testing::base_seed("point_groups") + 3);
  int separated = 0, not_separated = 0;
  for (int k = 0; k < 80; ++k) {
    const int d = 1 + k % 3;
    const std::size_t N = 2 + static_cast<std::size_t>(k % 6), n = 1 + static_cast<std::size_t>(k % 3);
    std::vector<Point> tokens = repeating_points(rng, N * n, d);
    if (k % 20 == 19) tokens[0][0] = Rational(Integer(5), P);  // no residue: exact fallback
    std::vector<std::size_t> owner;
    std::vector<Point> mu;
    for (std::size_t j = 0; j < N; ++j) {
      Point s = Point::Zero(d);
      for (std::size_t i = j * n; i < (j + 1) * n; ++i) owner.push_back(j), s += tokens[i];
      mu.push_back(s / Rational(static_cast<long>(n)));
    }
    const SeparatingShift shift(tokens, owner, mu), threaded(tokens, owner, mu, 3);
    for (int draw = 0; draw < 4; ++draw) {
      const Point f = rng.integer_vector(d, Integer(1 + draw)), v = rng.integer_vector(d, Integer(1 + draw));
      std::vector<Point> expect;
      for (std::size_t i = 0; i < tokens.size(); ++i) {
        Rational fm = 0;
        for (int c = 0; c < d; ++c) fm += f[c] * mu[owner[i]][c];
        expect.push_back(tokens[i] + v * fm);
      }
      BOOST_TEST((shift.shifted(f, v) == expect));
      const bool distinct = pairwise_distinct(expect);
      BOOST_TEST(shift.separates(f, v) == distinct, "case " << k << " draw " << draw);
      BOOST_TEST(threaded.separates(f, v) == distinct, "case " << k << " draw " << draw << ", 3 threads");
      BOOST_TEST((threaded.shifted(f, v) == expect));
      (distinct ? separated : not_separated)++;
    }
  }
  BOOST_TEST(separated > 10);  // both answers were exercised
  BOOST_TEST(not_separated > 10);
}

BOOST_AUTO_TEST_CASE(dot_over_a_common_denominator_equals_the_termwise_sum) {
  Rng rng(testing::base_seed("point_groups") + 4);
  for (int k = 0; k < 200; ++k) {
    const int d = 1 + k % 9;
    Point a(d), b(d);
    for (int c = 0; c < d; ++c) {
      a[c] = k % 4 == 0 && c % 3 == 0 ? Rational(0) : random_rational(rng, Integer(1) << (1 + k % 40));
      b[c] = k % 5 == 0 ? Rational(rng.integer_in(Integer(9))) : random_rational(rng, Integer(1) << (1 + k % 25));
    }
    Rational expect = 0;
    for (int c = 0; c < d; ++c) expect += a[c] * b[c];
    BOOST_TEST(dot(a, b) == expect, "case " << k);
    BOOST_TEST(norm_sq(a) == dot(a, a));
  }
  BOOST_TEST(dot(Point::Zero(3), Point::Zero(3)) == 0);
}

BOOST_AUTO_TEST_SUITE_END()
