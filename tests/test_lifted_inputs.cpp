// Phase S's view of the inputs (construction/lifted_inputs.hpp) and the residues it reads from
// the dataset's int64 numerators (TokenSequence::weighted_residues), each against its
// definition on exact decoded tokens.
#include <boost/test/unit_test.hpp>

#include <cstdint>
#include <string>
#include <vector>

#include "seeded_oracles.hpp"
#include "seqi/construction/lifted_inputs.hpp"
#include "seqi/core/point_groups.hpp"
#include "seqi/core/rng.hpp"
#include "seqi/core/token_sequence.hpp"
#include "seqi/model/token_state.hpp"
#include "seqi/numbers/residue.hpp"

BOOST_AUTO_TEST_SUITE(test_lifted_inputs)

using seqi::Integer;
using seqi::Point;
using seqi::Rational;

namespace {

const Integer kMax64("9223372036854775807");  // 2^63 - 1

// A token for the pool of one trial. kind 0: multiples of 1/255 (the int64 form), 1: signed
// integers with one coordinate beyond 64 bits (the GMP fallback), 2: signed multiples of 1/7.
Point pool_point(seqi::Rng& rng, Eigen::Index d, int kind) {
  Point x(d);
  for (Eigen::Index c = 0; c < d; ++c) {
    const long n = static_cast<long>(rng.next() % 512) - 256;
    x[c] = kind == 0 ? Rational(n < 0 ? -n : n, 255) : kind == 1 ? Rational(n) : Rational(n, 7);
  }
  if (kind == 1) x[0] += Rational(Integer(1) << 70);
  return x;
}

}  // namespace

// The residues of a compact sequence, from its int64 numerators, equal those of its decoded
// tokens: signs, numerators near +-(2^63 - 1), a shared denominator; declined (false) for the GMP
// fallback and for a denominator divisible by the residue prime.
BOOST_AUTO_TEST_CASE(weighted_residues_from_numerators_equal_the_decoded_ones) {
  const std::uint64_t seed = seqi::testing::base_seed("lifted_inputs") + 1;
  seqi::Rng rng(seed);
  const Integer prime = (Integer(1) << 61) - 1;
  std::size_t compared = 0;
  for (int trial = 0; trial < 120; ++trial) {
    const auto d = static_cast<Eigen::Index>(1 + rng.next() % 5);
    const long den = trial % 3 == 0 ? 1 : 255;
    seqi::TokenSequence seq;
    for (std::size_t t = 0; t < 1 + rng.next() % 12; ++t) {
      Point x(d);
      for (Eigen::Index c = 0; c < d; ++c) {
        const long sign = rng.next() % 2 ? 1 : -1;
        x[c] = rng.next() % 12 == 0 ? Rational(Integer(sign) * (kMax64 - static_cast<long>(rng.next() % 3)))
                                   : Rational(sign * static_cast<long>(rng.next() % 100000), den);
      }
      seq.push_back(x);
    }
    const auto w = seqi::residue_weights(static_cast<std::size_t>(d));
    std::vector<std::uint64_t> got(seq.size());
    if (!seq.weighted_residues(w, got.data())) continue;  // a mix that left the int64 form
    for (std::size_t i = 0; i < seq.size(); ++i) {
      BOOST_TEST(got[i] == *seqi::weighted_residue(w, seq[i]), "seed " << seed << " trial " << trial);
      ++compared;
    }
  }
  BOOST_TEST(compared > 100u);
  seqi::TokenSequence divisible{Point::Constant(2, Rational(Integer(3), prime))};  // den = p: no residue
  std::uint64_t out = 7;
  BOOST_TEST(divisible.compact());
  BOOST_TEST(!divisible.weighted_residues(seqi::residue_weights(2), &out));
  BOOST_TEST(out == 7u);
  seqi::TokenSequence big{Point::Constant(2, Rational(Integer(1) << 80))};  // the GMP fallback
  BOOST_TEST(!big.compact());
  BOOST_TEST(!big.weighted_residues(seqi::residue_weights(2), &out));
}

namespace {

// Every query of the lifted inputs c against its definition on the materialised tokens y.
void expect_lifted_inputs_equal(const seqi::LiftedInputs& c, const seqi::TokenState& y, const Point& r,
                                const std::string& where) {
  BOOST_REQUIRE_EQUAL(c.size(), y.tokens.size());
  const auto w = seqi::residue_weights(static_cast<std::size_t>(y.tokens.front().size()));
  bool every_residue = true;
  for (std::size_t i = 0; i < y.tokens.size(); ++i) {
    BOOST_TEST(seqi::equal_points(c.token(i), y.tokens[i]), where);
    BOOST_TEST(c.norm_sq(i) == seqi::norm_sq(y.tokens[i]), where);
    const auto h = seqi::weighted_residue(w, y.tokens[i]);
    every_residue = every_residue && h;
    if (c.residues() && h) BOOST_TEST((*c.residues())[i] == *h, where);
  }
  BOOST_TEST(c.residues().has_value() == every_residue, where);
  const auto mu = c.means(3);
  for (std::size_t j = 0; j < y.sequences(); ++j) {
    Point sum = Point::Zero(y.tokens.front().size());
    for (std::size_t i = y.begin[j]; i < y.begin[j + 1]; ++i) sum += y.tokens[i];
    BOOST_TEST(seqi::equal_points(mu[j], sum / Rational(static_cast<long>(y.size_of(j)))), where);
  }
  const auto groups = seqi::equal_point_groups(c.size(), c.residues(), [&](std::size_t i) { return c.token(i); });
  BOOST_TEST((groups == seqi::equal_point_groups(y.tokens)), where);
  for (std::size_t k = 0; k < y.tokens.size(); k += 3) {
    std::vector<std::size_t> expect;
    for (std::size_t i = 0; i < y.tokens.size(); ++i)
      if (seqi::equal_points(y.tokens[i], y.tokens[k])) expect.push_back(i);
    BOOST_TEST((c.indices_of(y.tokens[k]) == expect), where);
  }
  BOOST_TEST(c.indices_of(Point::Constant(y.tokens.front().size(), Rational(1, 1000003))).empty(), where);
  const auto t = c.readings(r, 2);
  for (std::size_t i = 0; i < y.tokens.size(); ++i) BOOST_TEST(t[i] == seqi::dot(r, y.tokens[i]), where);
}

}  // namespace

// Phase S's view of the inputs (LiftedInputs): tokens, residues, means, equal-token groups,
// lookups, norms and readings equal their definitions on the materialised tokens, on the int64
// path and the GMP fallback, with a denominator divisible by the residue prime, before and after
// tokens are moved.
BOOST_AUTO_TEST_CASE(lifted_inputs_equal_the_materialised_tokens) {
  const std::uint64_t seed = seqi::testing::base_seed("lifted_inputs") + 2;
  seqi::Rng rng(seed);
  const Integer prime = (Integer(1) << 61) - 1;
  for (int trial = 0; trial < 30; ++trial) {
    const auto d = static_cast<Eigen::Index>(2 + rng.next() % 3);
    std::vector<Point> pool;  // tokens repeat across sequences (H1: not within one)
    for (int k = 0; k < 12; ++k) pool.push_back(pool_point(rng, d, trial % 3));
    if (trial % 7 == 3) pool[0][1] = Rational(Integer(5), prime);  // no residue: the exact fallback
    seqi::Dataset data;
    data.dimension = static_cast<int>(d);
    for (int j = 0; j < 6; ++j) {
      seqi::SequencePair p;
      for (std::size_t k = rng.next() % 4; k < pool.size(); k += 1 + rng.next() % 3) p.input.push_back(pool[k]);
      if (p.input.empty()) p.input.push_back(pool.back());
      p.output.push_back(Point::Zero(d));
      data.pairs.push_back(std::move(p));
    }
    seqi::LiftedInputs c(data, trial % 2 ? 3 : 1);
    seqi::TokenState y = seqi::inputs_of(data);
    Point r(d);
    for (Eigen::Index k = 0; k < d; ++k) r[k] = Rational(static_cast<long>(rng.next() % 2049) - 1024, 1024);
    const std::string where = "seed " + std::to_string(seed) + " trial " + std::to_string(trial);
    expect_lifted_inputs_equal(c, y, r, where);
    for (int lift = 0; lift < 2; ++lift) {  // a lift moves every copy of one point
      const Point q = y.tokens[rng.next() % y.tokens.size()];
      Point e = Point::Zero(d);
      e[0] = Rational(lift == 0 ? 1 : -2, 3);
      for (std::size_t i : c.indices_of(q)) c.move(i, q + e);
      for (auto& x : y.tokens)
        if (seqi::equal_points(x, q)) x += e;
      BOOST_TEST(!c.indices_of(q + e).empty());  // the moved copies are found where they went
      expect_lifted_inputs_equal(c, y, r, where + " lift " + std::to_string(lift));
    }
  }
}

BOOST_AUTO_TEST_SUITE_END()
