// Float-robust hats (lem:hat-margin, lem:hat-order in proofs/conditioning.tex): the half-width
// rule and the placement order against their definitions, and a property over seeded datasets
// whose sequences hold nearly coincident tokens (readings 2^-16 .. 2^-28 apart): the certificate's
// margin check passes, an independent exact oracle (the breakpoints recomputed from U and b
// on the exact configuration) agrees, and a dense float64 run written here lands within 1e-9
// (relative Hausdorff) of every target. SEQI_SEED=<seed> replays; the seed is printed.
#include <boost/test/unit_test.hpp>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <iostream>
#include <limits>
#include <optional>
#include <random>

#include "seqi/certification/run_report.hpp"
#include "seqi/construction/construction.hpp"
#include "seqi/construction/hat_margin.hpp"
#include "seqi/io/hypotheses.hpp"
#include "seeded_oracles.hpp"

BOOST_AUTO_TEST_SUITE(test_hat_margin)

using namespace seqi;

namespace {

std::uint64_t base_seed() { return testing::base_seed("hat_margin"); }

bool is_power_of_two(const Rational& x) {
  const Integer p = numerator(x), q = denominator(x);
  return x > 0 && ((p == 1 && (q & (q - 1)) == 0) || (q == 1 && (p & (p - 1)) == 0));
}

// N sequences drawn from one pool of base points, sequence j shifted by j 2^-shift in the
// first coordinate: its readings nearly coincide with those of every other sequence.
Dataset near_coincident_dataset(std::mt19937_64& g, int shift) {
  Dataset data;
  data.name = "near-coincident";
  data.dimension = 2 + static_cast<int>(g() % 5);
  const std::size_t N = 2 + g() % 10, pool = 3 + g() % 5;
  std::vector<Point> base;
  for (std::size_t k = 0; k < pool; ++k) {
    Point p(data.dimension);
    for (auto& c : p) c = Rational(static_cast<long>(g() % 21) - 10, 1 + static_cast<long>(g() % 3));
    base.push_back(p);
  }
  const Rational tiny = Rational(Integer(1), Integer(1) << shift);
  for (std::size_t j = 0; j < N; ++j) {
    SequencePair pair;
    for (std::size_t k = 0; k < pool; ++k)
      if (k == 0 || g() % 2) {
        Point x = base[k];
        x[0] += tiny * static_cast<long>(j);
        pair.input.push_back(x);
      }
    const std::size_t m = 1 + g() % pair.input.size();
    for (std::size_t l = 0; l < m; ++l) {
      Point y(data.dimension);
      for (auto& c : y) c = Rational(static_cast<long>(g() % 41) - 20);
      pair.output.push_back(y);
    }
    data.pairs.push_back(pair);
  }
  return data;
}

// Oracle from the definitions: on the exact configuration before every hat of Phases S and
// P, each nonzero unit k reads beta_k r.x + b_k with U_k = beta_k r (r the first nonzero row),
// breakpoint theta_k = -b_k / beta_k; every token reads either the centre of the hull or at
// least the half-width away from every breakpoint.
std::string margin_violation(const Transformer<Rational>& model, const Dataset& data) {
  std::vector<TokenList<Rational>> X;
  for (const auto& pair : data.pairs) X.push_back(pair.input.points());
  for (std::size_t b = 0; b < model.blocks.size(); ++b) {
    const auto& block = model.blocks[b];
    for (auto& seq : X) seq = apply_hardmax(block.sa, seq);
    if (block.phase == Phase::separation || block.phase == Phase::placement) {
      const auto& U = block.ff.U;
      Eigen::Index first = 0;
      while (first < U.rows() && U.row(first).isZero()) ++first;
      Eigen::Index i = 0;
      while (U(first, i) == 0) ++i;
      const Point r = U.row(first).transpose();
      std::vector<Rational> theta;
      for (Eigen::Index k = first; k < U.rows(); ++k)
        if (!U.row(k).isZero()) theta.push_back(-block.ff.b[k] / (U(k, i) / U(first, i)));
      const auto [lo, hi] = std::minmax_element(theta.begin(), theta.end());
      const Rational half = (*hi - *lo) / 2, centre = (*lo + *hi) / 2;
      for (const auto& seq : X)
        for (const auto& x : seq) {
          const Rational t = dot(r, x);
          if (t == centre) continue;
          for (const auto& th : theta)
            if (abs(t - th) < half) return "block " + std::to_string(b + 1) + ": a reading inside the margin";
        }
    }
    for (auto& seq : X)
      for (auto& x : seq) x = block.ff.apply(x);
  }
  return {};
}

double relative_hausdorff(const TokenList<double>& out, const Sequence& targets) {
  double scale = 1;
  std::vector<Vec<double>> Y;
  for (const auto& y : targets) {
    Y.push_back(vector_from_rational<double>(y));
    scale = std::max(scale, Y.back().norm());
  }
  return testing::hausdorff(out, Y) / scale;
}

}  // namespace

BOOST_AUTO_TEST_CASE(half_width_is_the_largest_power_of_two_within_half_the_gap) {
  std::mt19937_64 g(base_seed());
  for (int k = 0; k < 300; ++k) {
    const Rational gap(static_cast<long>(1 + g() % 100000), static_cast<long>(1 + g() % 100000000));
    const Rational delta = hat_half_width_with_margin(gap);
    BOOST_TEST(is_power_of_two(delta), "gap " << gap);
    BOOST_TEST(2 * delta <= gap, "gap " << gap << ", delta " << delta);
    BOOST_TEST(4 * delta > gap, "gap " << gap << ", delta " << delta << " is not the largest");
    // No cap: the half-width scales with the readings (a 2^80 times larger gap, 2^80 times delta).
    const Rational big = gap * Rational(Integer(1) << 80);
    BOOST_TEST(hat_half_width_with_margin(big) == delta * Rational(Integer(1) << 80), "gap " << big);
  }
  BOOST_TEST(hat_half_width_with_margin(Rational(1, 2)) == Rational(1, 4));
  BOOST_TEST(hat_half_width_with_margin(Rational(7)) == Rational(2));
  BOOST_TEST(hat_half_width_with_margin(Rational(8)) == Rational(4));
}

namespace {

std::optional<Rational> placement_relative_window(const RunReport& run) {
  for (const auto& phase : run.measurements.phases)
    if (phase.phase == "placement") return phase.relative_window;
  return std::nullopt;
}

}  // namespace

// Hat half-widths follow the data's own scale (lem:hat-margin): a dataset multiplied by 2^k,
// k in {-70, 70}, gets the same relative placement windows as the original, and its float64
// run stays on target. With half-widths capped at 1 (the rule before), the first placement hat
// of the 2^70 copy had a relative window 2^-70 times smaller and its float run missed.
BOOST_AUTO_TEST_CASE(scaling_the_data_by_a_power_of_two_keeps_the_relative_windows) {
  std::size_t used = 0;
  for (std::uint64_t k = 0; k < 8; ++k) {
    const std::uint64_t seed = base_seed() + 100 + k;
    std::mt19937_64 g(seed);
    Dataset data = near_coincident_dataset(g, 8);
    if (!testing::hypotheses_hold(data)) continue;
    ++used;
    const auto base = certify_construction_hardmax(data, build_interpolating_transformer(data, seed), false);
    BOOST_REQUIRE_MESSAGE(base.certificate.verified, "seed " << seed);
    for (const long e : {-70L, 70L}) {
      Dataset scaled = data;
      const Rational f = e > 0 ? Rational(Integer(1) << e) : Rational(Integer(1), Integer(1) << -e);
      for (auto& pair : scaled.pairs) {
        Sequence xs = pair.input.points();
        for (auto& x : xs) x *= f;
        pair.input = TokenSequence(xs);  // 2^70: beyond int64, the GMP fallback
        Sequence ys = pair.output.points();
        for (auto& y : ys) y *= f;
        pair.output = TokenSequence(ys);
      }
      const auto built = build_interpolating_transformer(scaled, seed);
      const auto cert = certify_construction_hardmax(scaled, built, false);
      BOOST_TEST(cert.certificate.verified, "seed " << seed << ", scale 2^" << e);
      BOOST_TEST((placement_relative_window(cert) == placement_relative_window(base)),
                 "seed " << seed << ", scale 2^" << e);
      const auto model = convert_model<double>(built.model);
      for (const auto& pair : scaled.pairs) {
        TokenList<double> X;
        for (const auto& x : pair.input) X.push_back(vector_from_rational<double>(x));
        double scale = 0;
        for (const auto& y : pair.output) scale = std::max(scale, vector_from_rational<double>(y).norm());
        std::vector<Vec<double>> Y;
        for (const auto& y : pair.output) Y.push_back(vector_from_rational<double>(y));
        const double rel = testing::hausdorff(forward_dense(model, X), Y) / scale;
        BOOST_TEST(rel <= 1e-9, "seed " << seed << ", scale 2^" << e << ": relative Hausdorff distance " << rel);
      }
    }
  }
  BOOST_TEST(used >= 4u);
}

BOOST_AUTO_TEST_CASE(placement_order_is_by_decreasing_reading) {
  const std::vector<Rational> t{Rational(1, 3), Rational(5), Rational(-2), Rational(5), Rational(0)};
  BOOST_TEST((decreasing_reading_order(t) == std::vector<std::size_t>{1, 3, 0, 4, 2}));
}

BOOST_AUTO_TEST_CASE(near_coincident_readings_keep_the_margin_and_the_float64_run) {
  std::size_t used = 0;
  double worst = 0;
  for (std::uint64_t k = 0; k < 24; ++k) {
    const std::uint64_t seed = base_seed() + k;
    std::mt19937_64 g(seed);
    // Gaps 2^-16 .. 2^-28 of coordinates up to 10: relative windows far above d u (float64); at
    // 2^-36 and below the inputs' own readings are not resolved by float64 and no float run can
    // separate them (measured: off target), so the property is stated where the format resolves the data.
    Dataset data = near_coincident_dataset(g, 16 + static_cast<int>(k % 4) * 4);
    if (!testing::hypotheses_hold(data)) continue;
    ++used;
    const auto built = build_interpolating_transformer(data, seed);
    const auto cert = certify_construction_hardmax(data, built, false).certificate;
    BOOST_TEST(cert.verified, "seed " << seed);
    const auto check = std::find_if(cert.checks.begin(), cert.checks.end(),
                                    [](const Check& c) { return c.lemma == "lem:hat-margin"; });
    BOOST_REQUIRE_MESSAGE(check != cert.checks.end(), "seed " << seed << ": no margin check");  // P has hats
    BOOST_TEST(check->passed, "seed " << seed << ": " << check->detail);
    BOOST_TEST(margin_violation(built.model, data).empty(), "seed " << seed << ": " << margin_violation(built.model, data));
    const auto model = convert_model<double>(built.model);
    for (const auto& pair : data.pairs) {
      TokenList<double> X;
      for (const auto& x : pair.input) X.push_back(vector_from_rational<double>(x));
      const double rel = relative_hausdorff(forward_dense(model, X), pair.output.points());
      worst = std::max(worst, rel);
      BOOST_TEST(rel <= 1e-9, "seed " << seed << ": relative Hausdorff distance " << rel);
    }
  }
  std::cout << "hat_margin: " << used << " datasets, worst float64 relative distance " << worst << "\n";
  BOOST_TEST(used >= 12u);
}

BOOST_AUTO_TEST_SUITE_END()
