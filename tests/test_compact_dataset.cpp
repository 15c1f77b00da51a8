// The compact input sequences of a Dataset (TokenSequence): every token reads back
// exactly as written, on the int64 path and on the GMP fallback. Oracle: the Points pushed,
// and the fallback decision recomputed here with GMP integers from its definition.
#include <boost/test/unit_test.hpp>

#include <algorithm>
#include <cstdint>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "seeded_oracles.hpp"
#include "seqi/core/rng.hpp"
#include "seqi/construction/shifted_tokens.hpp"
#include "seqi/core/token_sequence.hpp"
#include "seqi/io/dataset_json.hpp"
#include "seqi/io/dataset_writer.hpp"

BOOST_AUTO_TEST_SUITE(test_compact_dataset)

using seqi::Integer;
using seqi::Point;
using seqi::Rational;
using seqi::TokenSequence;

namespace {

const Integer kMax64("9223372036854775807");  // 2^63 - 1

// A random rational from a mix meant to hit every path: zero, small values, a shared small
// denominator (the common case), large prime denominators (their lcm overflows int64),
// numerators at and beyond +-(2^63 - 1), and values far beyond 64 bits.
Rational random_value(seqi::Rng& rng) {
  const auto pick = [&](std::uint64_t n) { return static_cast<long>(rng.next() % n); };
  const long sign = pick(2) ? 1 : -1;
  switch (pick(8)) {
    case 0: return Rational(0);
    case 1: return Rational(sign * pick(1000));
    case 2:
    case 3: return Rational(sign * pick(256), 255);
    case 4: {
      static const long primes[] = {2147483647L, 2147483629L, 2147483587L, 1000000007L};
      return Rational(sign * (1 + pick(1000)), primes[pick(4)]);
    }
    case 5: return Rational(Integer(sign) * (kMax64 - pick(3)));          // +-(2^63 - 1 - k)
    case 6: return Rational(Integer(sign) * (kMax64 + 1 + pick(3)), 3);   // numerator beyond int64
    default: {
      Integer big = Integer(1) << (64 + pick(100));
      return Rational(Integer(sign) * (big + pick(1000)), Integer(1 + pick(7)));
    }
  }
}

Point random_point(seqi::Rng& rng, Eigen::Index d, int mix) {
  Point x(d);
  for (Eigen::Index c = 0; c < d; ++c) x[c] = mix ? random_value(rng) : Rational(static_cast<long>(rng.next() % 256), 255);
  return x;
}

// n random points of one random dimension 2..6 (the dimension drawn first).
std::vector<Point> random_points(seqi::Rng& rng, int n, int mix) {
  const auto d = static_cast<Eigen::Index>(2 + rng.next() % 5);
  std::vector<Point> xs;
  for (int t = 0; t < n; ++t) xs.push_back(random_point(rng, d, mix));
  return xs;
}

// The compact form's condition, from its definition: equal dimensions, and the lcm L of the
// reduced denominators and every numerator scaled to L within +-(2^63 - 1).
bool fits_compact(const std::vector<Point>& xs) {
  Integer lcm_all = 1;
  for (const auto& x : xs) {
    if (x.size() != xs.front().size()) return false;
    for (Eigen::Index c = 0; c < x.size(); ++c) lcm_all = boost::multiprecision::lcm(lcm_all, denominator(x[c]));
  }
  if (lcm_all > kMax64) return false;
  for (const auto& x : xs)
    for (Eigen::Index c = 0; c < x.size(); ++c) {
      const Integer n = numerator(x[c]) * (lcm_all / denominator(x[c]));
      if (n > kMax64 || n < -kMax64) return false;
    }
  return true;
}

// Bytes per numerator the compact form must use (xs compact): the narrowest of int16, int32 and
// int64 that holds every numerator scaled to the lcm of the reduced denominators.
std::size_t compact_width(const std::vector<Point>& xs) {
  Integer lcm_all = 1;
  for (const auto& x : xs)
    for (Eigen::Index c = 0; c < x.size(); ++c) lcm_all = boost::multiprecision::lcm(lcm_all, denominator(x[c]));
  std::size_t width = 2;
  for (const auto& x : xs)
    for (Eigen::Index c = 0; c < x.size(); ++c) {
      const Integer n = numerator(x[c]) * (lcm_all / denominator(x[c]));
      if (n > 2147483647 || n < -2147483647 - Integer(1)) width = 8;
      else if (n > 32767 || n < -32768) width = std::max<std::size_t>(width, 4);
    }
  return width;
}

// Token by token and in canonical text: a non-canonical rational (e.g. 2/4) would show there.
void expect_same(const TokenSequence& s, const std::vector<Point>& oracle) {
  BOOST_REQUIRE_EQUAL(s.size(), oracle.size());
  BOOST_TEST(s.empty() == oracle.empty());
  for (std::size_t i = 0; i < oracle.size(); ++i) {
    BOOST_TEST(seqi::equal_points(s[i], oracle[i]));
    BOOST_TEST(seqi::to_string(s[i]) == seqi::to_string(oracle[i]));
    BOOST_TEST(s.dimension(i) == oracle[i].size());
  }
  std::size_t i = 0;
  for (const auto& x : s) BOOST_TEST(seqi::equal_points(x, oracle[i++]));
  BOOST_TEST(i == oracle.size());
  const std::vector<Point> all = s.points();
  BOOST_REQUIRE_EQUAL(all.size(), oracle.size());
  for (std::size_t k = 0; k < all.size(); ++k) BOOST_TEST(seqi::equal_points(all[k], oracle[k]));
}

int lex_oracle(const Point& a, const Point& b) { return seqi::lex_less(a, b) ? -1 : seqi::lex_less(b, a) ? 1 : 0; }

}  // namespace

BOOST_AUTO_TEST_CASE(random_rationals_round_trip_after_every_push) {
  const std::uint64_t seed = seqi::testing::base_seed("compact_dataset");
  seqi::Rng rng(seed);
  std::size_t compact = 0, fallback = 0;
  for (int trial = 0; trial < 300; ++trial) {
    const int mix = trial % 3;  // one in three: only k/255 (must stay compact)
    const auto d = static_cast<Eigen::Index>(2 + rng.next() % 5);
    const std::size_t n = 1 + rng.next() % 12;
    TokenSequence s;
    std::vector<Point> oracle;
    for (std::size_t t = 0; t < n; ++t) {
      oracle.push_back(random_point(rng, d, mix));
      s.push_back(oracle.back());
      BOOST_TEST(s.compact() == fits_compact(oracle), "seed " << seed << " trial " << trial << " token " << t);
      if (s.compact()) BOOST_TEST(s.numerator_width() == compact_width(oracle), "seed " << seed << " trial " << trial);
      expect_same(s, oracle);
    }
    s.shrink_to_fit();
    expect_same(s, oracle);
    (s.compact() ? compact : fallback) += 1;
    if (!mix) BOOST_TEST(s.compact());
  }
  BOOST_TEST(compact > 50u);  // both paths exercised
  BOOST_TEST(fallback > 50u);
}

BOOST_AUTO_TEST_CASE(edge_values_fit_or_fall_back_exactly) {
  const Rational max64(kMax64), min64(-kMax64 - 1);
  // 2^63 - 1 and -(2^63 - 1) fit; -2^63 does not (numerators are kept within +-(2^63 - 1)).
  TokenSequence a{Point::Constant(2, max64), Point::Constant(2, -max64), Point::Zero(2)};
  BOOST_TEST(a.compact());
  expect_same(a, {Point::Constant(2, max64), Point::Constant(2, -max64), Point::Zero(2)});
  TokenSequence b{Point::Constant(2, min64)};
  BOOST_TEST(!b.compact());
  expect_same(b, {Point::Constant(2, min64)});
  // 1/2 then 2^62: the common denominator 2 makes the numerator 2^63, which does not fit.
  Point half = Point::Constant(2, Rational(1, 2)), big = Point::Constant(2, Rational(Integer(1) << 62));
  TokenSequence c{half};
  BOOST_TEST(c.compact());
  c.push_back(big);
  BOOST_TEST(!c.compact());
  expect_same(c, {half, big});
  // Tokens of different dimensions (a bad file before check_hypotheses) are kept as written.
  const Point three = Point::Constant(3, Rational(1, 3));
  TokenSequence e{half, three};
  BOOST_TEST(!e.compact());
  expect_same(e, {half, three});
}

BOOST_AUTO_TEST_CASE(numerators_widen_at_the_int16_and_int32_limits) {
  // {value pushed after the others, width expected}: the limits of int16 and int32 both ways.
  const std::vector<std::pair<Rational, std::size_t>> cases = {
      {Rational(32767), 2},       {Rational(-32768), 2},       {Rational(32768), 4},
      {Rational(-32769), 4},      {Rational(2147483647L), 4},  {Rational(-2147483648L), 4},
      {Rational(2147483648L), 8}, {Rational(-2147483649L), 8}};
  for (const auto& [v, width] : cases) {
    const std::vector<Point> xs{Point::Constant(2, Rational(1)), Point::Constant(2, v), Point::Zero(2)};
    const TokenSequence s(xs);
    BOOST_TEST(s.compact());
    BOOST_TEST(s.numerator_width() == width, "value " << v);
    expect_same(s, xs);
  }
  // A rescale widens: 16384 over 1, then 1/2 makes the common denominator 2 and 16384 -> 32768.
  const std::vector<Point> xs{Point::Constant(2, Rational(16384)), Point::Constant(2, Rational(1, 2))};
  TokenSequence s{xs[0]};
  BOOST_TEST(s.numerator_width() == 2u);
  s.push_back(xs[1]);
  BOOST_TEST(s.numerator_width() == 4u);
  expect_same(s, xs);
  Rational dot;
  BOOST_TEST(s.integer_dot(0, {3, -1}, dot));
  BOOST_TEST(dot == Rational(2 * 16384));
  BOOST_TEST(s.norm_sq(1, dot));
  BOOST_TEST(dot == Rational(1, 2));
}

BOOST_AUTO_TEST_CASE(compare_tokens_is_the_lexicographic_order) {
  seqi::Rng rng(seqi::testing::base_seed("compact_dataset") + 1);
  for (int trial = 0; trial < 200; ++trial) {
    std::vector<Point> xs, ys;
    for (int t = 0; t < 6; ++t) {
      // Few distinct values, so that equal tokens and equal prefixes are common.
      Point x(3), y(3);
      for (Eigen::Index c = 0; c < 3; ++c) {
        x[c] = Rational(static_cast<long>(rng.next() % 3) - 1, static_cast<long>(1 + rng.next() % 3));
        y[c] = Rational(static_cast<long>(rng.next() % 3) - 1, static_cast<long>(1 + rng.next() % 3));
      }
      xs.push_back(x);
      ys.push_back(y);
    }
    if (trial % 2) ys.push_back(Point::Constant(3, Rational(Integer(1) << 70)));  // ys on the fallback path
    if (trial % 4 == 2) ys.push_back(Point::Constant(3, Rational(1L << 40)));     // ys with int64 numerators
    const TokenSequence a(xs), b(ys);
    BOOST_TEST(a.compact());
    BOOST_TEST(b.compact() == (trial % 2 == 0));
    for (std::size_t i = 0; i < xs.size(); ++i)
      for (std::size_t j = 0; j < ys.size(); ++j) {
        BOOST_TEST(seqi::compare_tokens(a, i, b, j) == lex_oracle(xs[i], ys[j]));
        BOOST_TEST(seqi::compare_tokens(b, j, a, i) == lex_oracle(ys[j], xs[i]));
      }
  }
}

BOOST_AUTO_TEST_CASE(dataset_from_json_equals_dataset_built_point_by_point) {
  seqi::Rng rng(seqi::testing::base_seed("compact_dataset") + 2);
  seqi::Dataset built;
  built.name = "compact";
  built.dimension = 3;
  std::vector<std::vector<Point>> oracle;  // the input tokens written, pair by pair
  std::ostringstream text;
  text << "{\"name\": \"compact\", \"dimension\": 3, \"pairs\": [";
  for (int j = 0; j < 40; ++j) {
    seqi::SequencePair pair;
    text << (j ? "," : "") << "{\"input\": [";
    for (int t = 0; t < 5; ++t) {
      Point x = random_point(rng, 3, j % 2);
      x[0] = Rational(j * 10 + t);  // distinct tokens and input sets (H1, H3)
      text << (t ? "," : "") << "[";
      for (Eigen::Index c = 0; c < 3; ++c) text << (c ? "," : "") << '"' << seqi::to_string(x[c]) << '"';
      text << "]";
      pair.input.push_back(x);
      if (t == 0) oracle.emplace_back();
      oracle.back().push_back(x);
    }
    pair.output.push_back(Point::Zero(3));
    text << "], \"output\": [[0, 0, 0]]}";
    built.pairs.push_back(std::move(pair));
  }
  text << "]}";
  const auto expect_equal = [&](const seqi::Dataset& read) {
    BOOST_REQUIRE_EQUAL(read.pairs.size(), built.pairs.size());
    for (std::size_t j = 0; j < read.pairs.size(); ++j) {
      BOOST_TEST(read.pairs[j].input.compact() == built.pairs[j].input.compact());
      expect_same(read.pairs[j].input, oracle[j]);
      expect_same(built.pairs[j].input, oracle[j]);
    }
  };
  const seqi::Dataset read = seqi::parse_dataset_json(text.str(), "compact.json");
  expect_equal(read);
  std::ostringstream written;
  seqi::write_dataset_json(read, written);
  expect_equal(seqi::parse_dataset_json(written.str(), "written.json"));
}

// integer_dot and norm_sq read the int64 form exactly, or decline (false) when the sequence is
// not compact or a sum leaves 127 bits; oracle: dot and norm_sq of the decoded Points.
BOOST_AUTO_TEST_CASE(integer_dot_and_norm_are_exact_or_decline) {
  const std::uint64_t seed = seqi::testing::base_seed("compact_dataset") + 7;
  seqi::Rng rng(seed);
  std::size_t read = 0, declined = 0;
  for (int trial = 0; trial < 200; ++trial) {
    const int mix = trial % 3;
    const std::vector<Point> xs = random_points(rng, 6, mix);
    const Eigen::Index d = xs.front().size();
    const TokenSequence s(xs);
    std::vector<std::int64_t> r(static_cast<std::size_t>(d));
    const bool huge_r = trial % 4 == 3;  // products near 2^126: some sums overflow
    for (auto& v : r) v = huge_r ? static_cast<std::int64_t>(rng.next() >> 1) : static_cast<std::int64_t>(rng.next() % 2001) - 1000;
    Point rp(d);
    for (Eigen::Index c = 0; c < d; ++c) rp[c] = Rational(Integer(r[static_cast<std::size_t>(c)]));
    for (std::size_t i = 0; i < xs.size(); ++i) {
      Rational out(-12345), n2(-12345);
      const bool got = s.integer_dot(i, r, out), got_n = s.norm_sq(i, n2);
      BOOST_TEST((got ? out == seqi::dot(rp, xs[i]) : out == -12345), "seed " << seed << " trial " << trial);
      BOOST_TEST((got_n ? n2 == seqi::norm_sq(xs[i]) : n2 == -12345), "seed " << seed << " trial " << trial);
      if (!mix) BOOST_TEST(got_n);  // k/255 values: always read
      if (!mix && !huge_r) BOOST_TEST(got);
      if (!s.compact()) BOOST_TEST(!(got || got_n));
      (got ? read : declined) += 1;
    }
    std::vector<std::int64_t> wrong(static_cast<std::size_t>(d + 1), 1);
    Rational out;
    BOOST_TEST(!s.integer_dot(0, wrong, out));  // r of another dimension
  }
  BOOST_TEST(read > 200u);
  BOOST_TEST(declined > 100u);
}

// The mean on the int64 numerators equals the sum of the decoded tokens over n, or declines
// (fallback form, empty sequence) and leaves its argument unchanged.
BOOST_AUTO_TEST_CASE(mean_is_exact_or_declines) {
  const std::uint64_t seed = seqi::testing::base_seed("compact_dataset") + 11;
  seqi::Rng rng(seed);
  std::size_t read = 0, declined = 0;
  for (int trial = 0; trial < 200; ++trial) {
    const int n = 1 + static_cast<int>(rng.next() % 9);
    const std::vector<Point> xs = random_points(rng, n, trial % 3);
    const Eigen::Index d = xs.front().size();
    const TokenSequence s(xs);
    Point sum = Point::Zero(d);
    for (const auto& x : xs) sum += x;
    const Point expected = sum / Rational(n);
    Point out = Point::Constant(1, Rational(-7));
    const bool got = s.mean(out);
    BOOST_TEST((got ? out == expected : out == Point::Constant(1, Rational(-7))), "seed " << seed << " trial " << trial);
    BOOST_TEST(got == s.compact(), "seed " << seed << " trial " << trial);
    (got ? read : declined) += 1;
  }
  Point out;
  BOOST_TEST(!TokenSequence().mean(out));
  BOOST_TEST(read > 50u);
  BOOST_TEST(declined > 20u);
}

// The placement's view of the tokens after Phase S (x_i = y_i + s_j v): readings, norms and
// tokens equal their definitions on the materialised shift, with and without lifted tokens,
// on the int64 path and the GMP fallback, on 1 and 3 threads.
BOOST_AUTO_TEST_CASE(shifted_tokens_equal_the_materialised_shift) {
  const std::uint64_t seed = seqi::testing::base_seed("compact_dataset") + 11;
  seqi::Rng rng(seed);
  for (int trial = 0; trial < 40; ++trial) {
    const auto d = static_cast<Eigen::Index>(2 + rng.next() % 4);
    seqi::Dataset data;
    data.dimension = static_cast<int>(d);
    for (int j = 0; j < 5; ++j) {
      seqi::SequencePair p;
      const int mix = (trial + j) % 3 == 0 ? 1 : 0;
      for (std::size_t t = 0; t < 1 + rng.next() % 20; ++t) p.input.push_back(random_point(rng, d, mix));
      p.output.push_back(Point::Zero(d));
      data.pairs.push_back(std::move(p));
    }
    seqi::TokenState y = seqi::inputs_of(data);
    seqi::LiftedInputs lifted_inputs(data);
    const bool lifted = trial % 4 == 1, shifted = trial % 5 != 2;
    if (lifted) {
      const std::size_t i = rng.next() % y.tokens.size();
      y.tokens[i][0] += Rational(3, 7);
      lifted_inputs.move(i, y.tokens[i]);
    }
    Point v(d);
    for (Eigen::Index c = 0; c < d; ++c) v[c] = Rational(static_cast<long>(rng.next() % 9) - 4);
    std::vector<Rational> s;
    if (shifted)
      for (std::size_t j = 0; j < data.pairs.size(); ++j)
        s.emplace_back(static_cast<long>(rng.next() % 2001) - 1000, 1 + static_cast<long>(rng.next() % 4080));
    const seqi::ShiftedTokens view(lifted_inputs, v, s);
    const auto owner = y.owners();
    std::vector<Point> x;
    Rational most = 0;
    for (std::size_t i = 0; i < y.tokens.size(); ++i) {
      x.push_back(shifted ? Point(y.tokens[i] + v * s[owner[i]]) : y.tokens[i]);
      most = std::max(most, seqi::norm_sq(x.back()));
      BOOST_TEST(seqi::equal_points(view.token(i), x.back()));
    }
    BOOST_TEST(view.max_norm_sq(trial % 2 ? 3 : 1) == most, "seed " << seed << " trial " << trial);
    Point dyadic(d), general(d);
    for (Eigen::Index c = 0; c < d; ++c) {
      dyadic[c] = Rational(static_cast<long>(rng.next() % 2049) - 1024, 1024);
      general[c] = c == 0 ? Rational(Integer(1) << 70, 3) : random_value(rng);  // beyond int64: the GMP path
    }
    for (const Point& r : {dyadic, general})
      for (unsigned threads : {1u, 3u}) {
        const auto t = view.readings(r, threads);
        BOOST_REQUIRE_EQUAL(t.size(), x.size());
        for (std::size_t i = 0; i < x.size(); ++i) BOOST_TEST(t[i] == seqi::dot(r, x[i]), "seed " << seed << " trial " << trial);
      }
  }
}

BOOST_AUTO_TEST_SUITE_END()
