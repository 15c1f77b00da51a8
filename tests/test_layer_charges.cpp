// The sparse float bound's data structures (lem:float-run-sparse). LayerCharges: the owed sums
// against exact sums over the recorded layers written from the definition, on random layers,
// keys and queries; the strict key test; misuse is an error. EnclosureOrder: the tokens meeting
// a query against a scan of every token, through moves, rebuilds and non-finite ends, and the
// error maxima over a zone against the tokens meeting it (errors changed up and down).
#include <boost/test/unit_test.hpp>

#include <algorithm>

#include <cmath>
#include <random>
#include <stdexcept>
#include <vector>

#include "seeded_oracles.hpp"
#include "seqi/float_statement/enclosure_order.hpp"
#include "seqi/float_statement/layer_charges.hpp"
#include "seqi/numbers/rational.hpp"
#include "seqi/numbers/upward.hpp"

BOOST_AUTO_TEST_SUITE(test_layer_charges)

using namespace seqi;

namespace {

struct Recorded {
  bool present = false;
  double key = 0;
  AffineCharge charge;
};

// Exact sum of alpha + beta (t - key) over the recorded layers in [from, to) with key < t.
std::pair<Rational, Rational> exact_owed(const std::vector<Recorded>& layers, std::size_t from, std::size_t to,
                                         double t, double x) {
  Rational e = 0, rho = 0;
  for (std::size_t l = from; l < to; ++l)
    if (layers[l].present && layers[l].key < t) {
      const Rational reach = Rational(t) - Rational(layers[l].key);
      const AffineCharge& c = layers[l].charge;
      e += Rational(c.alpha.e) + Rational(c.beta.e) * reach + Rational(c.gamma.e) * Rational(x);
      rho += Rational(c.alpha.rho) + Rational(c.beta.rho) * reach + Rational(c.gamma.rho) * Rational(x);
    }
  return {e, rho};
}

}  // namespace

BOOST_AUTO_TEST_CASE(owed_sums_enclose_the_exact_sums_from_above) {
  const auto seed = testing::base_seed("layer_charges");
  std::mt19937_64 g(seed);
  std::uniform_real_distribution<double> unit(0, 1);
  std::size_t queries = 0, nonzero = 0;
  for (int trial = 0; trial < 40; ++trial) {
    const std::size_t L = 1 + g() % 300;
    std::vector<Recorded> layers(L);
    LayerCharges charges(L);
    std::vector<std::size_t> stamp(25);  // tokens, each last settled before stamp
    std::vector<double> reading(stamp.size());
    for (double& t : reading) t = static_cast<double>(g() % 41) - 20;  // keys may equal readings
    for (std::size_t now = 0; now < L; ++now) {
      UpwardRounding up;
      // settle a few tokens at `now` (layers < now are final)
      for (std::size_t i = 0; i < stamp.size(); ++i) {
        if (g() % 4) continue;
        const double x = static_cast<double>(i) / 8;  // token magnitudes, some 0
        const Charge got = charges.owed(stamp[i], now, reading[i], x);
        const auto [e, rho] = exact_owed(layers, stamp[i], now, reading[i], x);
        ++queries;
        nonzero += e > 0;
        BOOST_TEST((Rational(got.e) >= e && Rational(got.rho) >= rho), "trial " << trial << ": owed below the exact sum");
        // rounding: relative 1e-12 of the sum, plus the cancellation in t sum(beta) - sum(beta key)
        const Rational slack = Rational(1e-12) * (Rational(std::fabs(reading[i])) + 50) * Rational(1e-6) * 300;
        BOOST_TEST((Rational(got.e) <= e * Rational(1 + 1e-12) + slack &&
                    Rational(got.rho) <= rho * Rational(1 + 1e-12) + slack),
                   "trial " << trial << ": owed far above the exact sum");
        stamp[i] = now;
      }
      if (g() % 3 == 0) continue;  // an unrecorded layer charges nothing
      const double scale = std::ldexp(1.0, -static_cast<int>(g() % 60));
      layers[now] = {true, static_cast<double>(g() % 41) - 20.5 + (g() % 2 ? 0.5 : 0.0),
                     {{unit(g) * 1e-9, unit(g) * scale},
                      {g() % 2 ? unit(g) * 1e-6 : 0.0, unit(g) * scale},
                      {unit(g) * 1e-12, g() % 2 ? unit(g) * scale : 0.0}}};
      charges.record(now, layers[now].key, layers[now].charge);
    }
  }
  BOOST_TEST(queries > 1000u);
  BOOST_TEST(nonzero > 300u);
}

BOOST_AUTO_TEST_CASE(a_key_equal_to_the_reading_is_not_charged) {
  UpwardRounding up;
  LayerCharges charges(4);
  charges.record(0, 1.0, {{1, 2}, {0, 0}, {0, 0}});
  charges.record(2, 0.5, {{4, 8}, {2, 0}, {1, 0}});
  BOOST_TEST(charges.owed(0, 4, 1.0, 0).e == 5.0);   // layer 2 only: 4 + 2 (1 - 0.5)
  BOOST_TEST(charges.owed(0, 4, 1.5, 0).rho == 10.0);
  BOOST_TEST(charges.owed(1, 4, 2.0, 0).e == 7.0);   // 4 + 2 (2 - 0.5)
  BOOST_TEST(charges.owed(3, 4, 2.0, 0).e == 0.0);
  BOOST_TEST(charges.owed(0, 4, 1.0, 3).e == 8.0);  // + gamma x = 1 * 3
  BOOST_TEST(charges.owed(0, 4, -1.0, 0).e == 0.0);  // left of every key
}

BOOST_AUTO_TEST_CASE(misuse_is_an_error) {
  LayerCharges charges(3);
  charges.record(1, 0, {{1, 1}, {0, 0}, {0, 0}});
  BOOST_CHECK_THROW(charges.record(1, 0, {{1, 1}, {0, 0}, {0, 0}}), std::logic_error);
  BOOST_CHECK_THROW(charges.record(3, 0, {{1, 1}, {0, 0}, {0, 0}}), std::out_of_range);
  UpwardRounding up;
  BOOST_CHECK_THROW(charges.owed(2, 1, 0, 0), std::out_of_range);
  BOOST_CHECK_THROW(charges.owed(0, 4, 0, 0), std::out_of_range);
}

BOOST_AUTO_TEST_CASE(enclosure_order_lists_exactly_the_tokens_meeting_a_query) {
  const auto seed = testing::base_seed("layer_charges");
  std::mt19937_64 g(seed + 7);
  std::size_t listed = 0, rebuilt_moves = 0, raised = 0, tight = 0;
  for (int trial = 0; trial < 12; ++trial) {
    UpwardRounding up;
    const std::size_t n = trial < 6 ? 1 + g() % 60 : 3000 + g() % 3000;  // large: moves past the rebuild threshold
    std::vector<double> lo(n), hi(n), e(n), rho(n);
    // enclosures on a coarse grid (ends and queries often coincide), a few non-finite
    auto draw = [&](std::size_t i) {
      const double a = static_cast<double>(static_cast<long>(g() % 201) - 100) / 8;
      const double w = (g() % 3 == 0) ? 0 : static_cast<double>(g() % 17) / 16;
      lo[i] = a;
      hi[i] = a + w;
      if (g() % 97 == 0) lo[i] = std::nan("");
      if (g() % 89 == 0) hi[i] = HUGE_VAL;
    };
    auto draw_errors = [&](std::size_t i) {
      e[i] = static_cast<double>(g() % 1000) / 64;
      rho[i] = static_cast<double>(g() % 1000) / 32;
      if (g() % 211 == 0) e[i] = std::nan("");
    };
    for (std::size_t i = 0; i < n; ++i) draw(i), draw_errors(i);
    EnclosureOrder order;
    order.rebuild(lo, hi, e, rho);
    for (int step = 0; step < 300; ++step) {
      if (g() % 2) {  // move some tokens
        for (std::size_t k = 0, moves = 1 + g() % (n / 8 + 2); k < moves; ++k) {
          const std::size_t i = g() % n;
          draw(i);
          draw_errors(i);
          order.moved(i, lo, hi, e, rho);
          ++rebuilt_moves;
        }
      }
      for (std::size_t k = 0, changes = g() % (n / 4 + 2); k < changes; ++k) {  // errors up or down, enclosure kept
        const std::size_t i = g() % n;
        draw_errors(i);
        order.errors_changed(i, e[i], rho[i]);
        ++raised;
      }
      const double a = static_cast<double>(static_cast<long>(g() % 221) - 110) / 8;
      const double b = a + static_cast<double>(g() % 40) / 8;
      std::vector<std::size_t> expected;
      for (std::size_t i = 0; i < n; ++i)
        if (!(hi[i] < a) && !(lo[i] > b)) expected.push_back(i);
      std::vector<std::size_t> got = order.meeting(a, b, lo, hi);
      std::sort(got.begin(), got.end());  // meeting lists each token once, in no particular order
      BOOST_TEST(got == expected, "trial " << trial << " step " << step << " query [" << a << ", " << b << "]");
      listed += got.size();
      // The zone's bounds cover every token meeting [a, b]; a NaN error or end shows as NaN.
      const auto z = order.errors_meeting(a, b, lo, hi, e, rho);
      double e_max = 0;
      bool nan_error = false;
      for (std::size_t i : expected) {
        nan_error = nan_error || std::isnan(e[i]);
        if (!std::isnan(e[i])) e_max = std::max(e_max, e[i]);
        BOOST_TEST((std::isnan(z.e) || z.e >= e[i] || std::isnan(e[i])), "e of token " << i);
        BOOST_TEST(z.rho >= rho[i], "rho of token " << i);
        BOOST_TEST((std::isnan(z.lo) || std::isnan(lo[i]) || z.lo <= lo[i]), "lo of token " << i);
        BOOST_TEST((std::isnan(z.hi) || z.hi >= hi[i]), "hi of token " << i);
      }
      if (nan_error) BOOST_TEST(std::isnan(z.e));
      if (expected.empty() && !std::isnan(z.e) && z.e == 0) ++tight;
      if (!expected.empty() && z.e == e_max) ++tight;  // often exact: the superset is near the zone
    }
  }
  std::cout << "enclosure order: " << listed << " tokens listed, " << rebuilt_moves << " moves, " << raised
            << " error changes, " << tight << " of 3600 zone maxima exact\n";
  BOOST_TEST(listed > 1000u);
  BOOST_TEST(tight > 500u);
}

BOOST_AUTO_TEST_SUITE_END()
