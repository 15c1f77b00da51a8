#include <boost/test/unit_test.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <iostream>
#include <numeric>
#include <random>
#include <string>

#include "seqi/replay/float_replay.hpp"
#include "replay/replay_direction.hpp"
#include "replay/replay_readings.hpp"
#include "replay/replay_update.hpp"
#include "seeded_oracles.hpp"

BOOST_AUTO_TEST_SUITE(test_float_replay_kernel)

using namespace seqi;
using seqi::testing::base_seed;

namespace {

// One-direction layers whose every float operation is exact: readings r in {-1, 0, 1}^d (d <= 5),
// slopes in {0, +-1/2, +-1, +-2}, integer offsets |b| <= 10, columns in quarters of at most 1,
// eta in {1, 1/2}, widths 1 to 6, tokens in [-4, 4]^d. Layer by layer the coordinates stay below
// 304, 18604, 1.2e6, 6.8e7 with denominators 8, 64, 512, 4096, and every reading, pre-activation
// and product below 2^35: within float32's 24 bits for two layers, float64's 53 for four. Then
// every float run of the model, in any summation order, is the exact rational run, so the replay
// must reproduce the exact pass (forward_dense) bit for bit: the replay's reading cache, its
// skipping of tokens with no nonzero unit, and its fused unit updates (more than four active units
// included) are checked against an oracle that shares none of them.
// Breakpoints sit on the tokens' readings often (pre-activation exactly 0: that unit adds nothing).
struct ExactFloatCase {
  Transformer<Rational> model;
  Dataset data;
};

ExactFloatCase exact_float_case(std::mt19937_64& gen, long max_layers) {
  auto integer = [&](long lo, long hi) { return std::uniform_int_distribution<long>(lo, hi)(gen); };
  const int d = static_cast<int>(integer(2, 5));
  ExactFloatCase c;
  c.model.dimension = d;
  c.data.name = "exact-float";
  c.data.dimension = d;
  for (int j = 0; j < 3; ++j) {
    std::vector<Point> tokens;
    for (long i = integer(1, 12); i > 0; --i) {
      Point x(d);
      for (int k = 0; k < d; ++k) x[k] = integer(-4, 4);
      tokens.push_back(x);
    }
    c.data.pairs.push_back({TokenSequence(tokens), {}});
  }
  const std::vector<Rational> slopes{0, Rational(1, 2), Rational(-1, 2), 1, -1, 2, -2};
  for (long b = integer(1, max_layers); b > 0; --b) {
    const Point r = [&] {
      Point p(d);
      for (int k = 0; k < d; ++k) p[k] = integer(-1, 1);
      return p;
    }();
    const auto w = static_cast<Eigen::Index>(integer(1, 6));
    FeedForward<Rational> ff;
    ff.eta = integer(0, 3) == 0 ? Rational(1, 2) : Rational(1);
    ff.U.edit().resize(w, d);
    ff.b.resize(w);
    ff.W.edit().resize(d, w);
    for (Eigen::Index u = 0; u < w; ++u) {
      ff.U.edit().row(u) = r.transpose() * slopes[static_cast<std::size_t>(integer(0, 6))];
      ff.b[u] = integer(-10, 10);
      for (int k = 0; k < d; ++k) ff.W.edit()(k, u) = Rational(integer(-4, 4), 4);
    }
    c.model.blocks.push_back({SelfAttention<Rational>::identity(), ff, Phase::user});
  }
  // The targets are the exact outputs, so the replay's distance to them is 0 iff it equals them.
  for (auto& pair : c.data.pairs) {
    TokenList<Rational> X;
    for (std::size_t i = 0; i < pair.input.size(); ++i) X.push_back(pair.input[i]);
    for (const auto& y : forward_dense(c.model, X)) pair.output.push_back(y);
  }
  return c;
}

}  // namespace

BOOST_AUTO_TEST_CASE(one_direction_replays_equal_the_exact_run_when_every_operation_is_exact) {
  const std::uint64_t seed = base_seed("float_replay_kernel");
  std::mt19937_64 gen(seed);
  std::size_t moving_cases = 0;
  for (int t = 0; t < 300; ++t) {
    const bool single = t % 2 == 1;  // float32 cases: at most two layers
    const ExactFloatCase c = exact_float_case(gen, single ? 2 : 4);
    for (unsigned threads : {1u, 2u}) {
      const ReplayOutcome run = single ? run_replay<float>(c.model, c.data, std::nullopt, std::nullopt, {}, 0.0, threads)
                                  : run_replay<double>(c.model, c.data, std::nullopt, std::nullopt, {}, 0.0, threads);
      BOOST_TEST_CONTEXT("case " << t << " (SEQI_SEED=" << seed << "), " << run.scalar << ", threads " << threads) {
        BOOST_TEST(run.max_relative_hausdorff == 0.0);
        BOOST_TEST(run.sequences_off_target == 0u);
        BOOST_TEST(run.nonfinite == 0u);
        BOOST_TEST(run.sequences_checked == c.data.pairs.size());
      }
    }
    // The case moved some token (else the check above would be vacuous for it).
    for (std::size_t j = 0; j < c.data.pairs.size(); ++j)
      for (std::size_t i = 0; i < c.data.pairs[j].input.size(); ++i)
        if (Point(c.data.pairs[j].input[i]) != c.data.pairs[j].output[i]) {
          ++moving_cases;
          j = c.data.pairs.size();
          break;
        }
  }
  std::cout << "float_replay_kernel: " << moving_cases << " of 300 cases move a token\n";
  BOOST_TEST(moving_cases >= 250u);
}

// A token right of every breakpoint of a width-6 layer has all six units active: the fused
// update runs twice (four units, then two). One token, every operation exact.
BOOST_AUTO_TEST_CASE(six_active_units_are_added_in_unit_order) {
  Transformer<Rational> model;
  model.dimension = 2;
  FeedForward<Rational> ff;
  ff.U.edit().resize(6, 2);
  ff.b.resize(6);
  ff.W.edit().resize(2, 6);
  for (Eigen::Index u = 0; u < 6; ++u) {
    ff.U.edit().row(u) << 1, 0;
    ff.b[u] = -u;
    ff.W.edit().col(u) << Rational(1, 4) * (u + 1), -1;
  }
  model.blocks.push_back({SelfAttention<Rational>::identity(), ff, Phase::user});
  Dataset data;
  data.dimension = 2;
  data.pairs.push_back({TokenSequence({Point(Vec<Rational>::Constant(2, 10))}), {}});
  TokenList<Rational> X{Point(Vec<Rational>::Constant(2, 10))};
  data.pairs[0].output.push_back(forward_dense(model, X)[0]);
  // x = (10, 10): h_u = 10 - u, x_1 = 10 + sum (u + 1)(10 - u) / 4 = 10 + 140 / 4, x_2 = 10 - 45.
  BOOST_TEST(data.pairs[0].output[0][0] == Rational(45));
  BOOST_TEST(data.pairs[0].output[0][1] == Rational(-35));
  const ReplayOutcome run = run_replay<double>(model, data, std::nullopt, std::nullopt, {}, 0.0);
  BOOST_TEST(run.max_relative_hausdorff == 0.0);
}

namespace {

// 1 to `tokens` distinct token indices in random order.
std::vector<std::uint32_t> random_listed(std::size_t tokens, std::mt19937_64& gen) {
  std::vector<std::uint32_t> listed(tokens);
  std::iota(listed.begin(), listed.end(), std::uint32_t{0});
  std::shuffle(listed.begin(), listed.end(), gen);
  listed.resize(std::uniform_int_distribution<std::size_t>(1, tokens)(gen));
  return listed;
}

// fixed_order_dot's order written from its statement in replay_readings.hpp, one scalar at a time.
template <class F>
F stated_order_dot(const std::vector<F>& r, const std::vector<F>& x) {
  const std::size_t d = r.size(), P = sizeof(F) == 8 ? 2 : 4, L = 2 * P;
  std::vector<F> p(d);
  for (std::size_t i = 0; i < d; ++i) p[i] = r[i] * x[i];
  const auto reduce = [&](const std::vector<F>& A) { return P == 2 ? A[0] + A[1] : (A[0] + A[2]) + (A[1] + A[3]); };
  F s;
  std::size_t next;
  if (d < P) {
    s = p[0];
    next = 1;
  } else if (d < L) {
    s = reduce(std::vector<F>(p.begin(), p.begin() + static_cast<long>(P)));
    next = P;
  } else {
    const std::size_t blocks_end = d / L * L;
    std::vector<F> a(p.begin(), p.begin() + static_cast<long>(L));
    for (std::size_t i = L; i < blocks_end; ++i) a[i % L] = a[i % L] + p[i];
    std::vector<F> A(P);
    for (std::size_t j = 0; j < P; ++j) A[j] = a[j] + a[j + P];
    next = blocks_end;
    if (d - blocks_end >= P) {
      for (std::size_t j = 0; j < P; ++j) A[j] = A[j] + p[blocks_end + j];
      next = blocks_end + P;
    }
    s = reduce(A);
  }
  for (std::size_t i = next; i < d; ++i) s = s + p[i];
  return s;
}

// Random lengths 1..80 and magnitudes over many binades (cancellation included): the batched
// readings, the single dot and the statement agree bit for bit; where the build's Eigen takes
// SSE2 packets (x86-64 without AVX), so does r.dot(x), as replay_readings.hpp states.
template <class F>
void readings_follow_the_stated_order(std::mt19937_64& gen) {
  std::normal_distribution<double> normal;
  for (int trial = 0; trial < 400; ++trial) {
    const auto d = static_cast<std::size_t>(std::uniform_int_distribution<int>(1, 80)(gen));
    const std::size_t tokens = std::uniform_int_distribution<std::size_t>(1, 11)(gen);
    const auto draw = [&] { return static_cast<F>(normal(gen) * std::exp2(std::round(8 * normal(gen)))); };
    std::vector<F> r(d), X(d * tokens);
    for (auto& v : r) v = draw();
    for (auto& v : X) v = draw();
    const std::vector<std::uint32_t> listed = random_listed(tokens, gen);
    std::vector<F> t(tokens, F(-7));
    fixed_order_readings(r.data(), X.data(), d, listed.data(), listed.size(), t.data());
    for (std::size_t k = 0; k < tokens; ++k) {
      const std::vector<F> x(X.begin() + static_cast<long>(k * d), X.begin() + static_cast<long>((k + 1) * d));
      const F stated = stated_order_dot(r, x);
      const bool is_listed = std::find(listed.begin(), listed.end(), k) != listed.end();
      BOOST_TEST((is_listed ? t[k] == stated : t[k] == F(-7)), "d " << d << " token " << k);
      BOOST_TEST(fixed_order_dot(r.data(), x.data(), d) == stated);
#if defined(__SSE2__) && !defined(__AVX__)
      const Eigen::Map<const Eigen::Matrix<F, Eigen::Dynamic, 1>> rv(r.data(), static_cast<Eigen::Index>(d));
      const Eigen::Map<const Eigen::Matrix<F, Eigen::Dynamic, 1>> xv(X.data() + k * d, static_cast<Eigen::Index>(d));
      BOOST_TEST(rv.dot(xv) == stated, "Eigen's order, d " << d);
#endif
    }
  }
}

}  // namespace

BOOST_AUTO_TEST_CASE(batched_readings_follow_one_stated_order) {
  std::mt19937_64 gen(base_seed("float_replay_kernel") + 17);
  readings_follow_the_stated_order<double>(gen);
  readings_follow_the_stated_order<float>(gen);
}

namespace {

// update_listed against its statement in replay_update.hpp, one unit and one coordinate at a time,
// with the new reading by stated_order_dot: lengths 1..80 (below, at and above the lane count),
// widths 1..7 (more than four active units included), slopes +-2^e or 0, offsets placing the
// breakpoints among the readings (units active, inactive, exactly 0), eta 1 or not, and listed
// tokens in random order (pairs with equal and unequal active counts side by side).
template <class F>
void update_follows_its_statement(std::mt19937_64& gen) {
  std::normal_distribution<double> normal;
  const auto draw = [&] { return static_cast<F>(normal(gen) * std::exp2(std::round(6 * normal(gen)))); };
  auto integer = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(gen); };
  for (int trial = 0; trial < 400; ++trial) {
    const auto d = static_cast<std::size_t>(integer(1, 80));
    const auto w = static_cast<std::size_t>(integer(1, 7));
    const auto tokens = static_cast<std::size_t>(integer(1, 12));
    std::vector<F> r(d), X(d * tokens), W(d * w), slope(w), b(w), t(tokens);
    for (auto& v : r) v = draw();
    for (auto& v : X) v = draw();
    for (auto& v : W) v = draw();
    for (auto& v : t) v = draw();
    for (std::size_t u = 0; u < w; ++u) {
      slope[u] = integer(0, 4) == 0 ? F(0) : static_cast<F>((integer(0, 1) ? 1 : -1) * std::exp2(integer(-3, 3)));
      const F at = t[static_cast<std::size_t>(integer(0, static_cast<int>(tokens) - 1))];
      b[u] = integer(0, 2) == 0 ? -slope[u] * at : draw();  // often a breakpoint on a reading
    }
    const F eta = integer(0, 3) == 0 ? static_cast<F>(0.75) : F(1);
    const std::vector<std::uint32_t> listed = random_listed(tokens, gen);
    for (const bool reread : {false, true}) {
      std::vector<F> Xk = X, tk = t, Xs = X, ts = t;
      update_listed(Xk.data(), d, listed.data(), listed.size(), tk.data(), slope.data(), b.data(), W.data(), w, eta,
                    reread ? r.data() : nullptr);
      for (const std::uint32_t k : listed) {
        F* x = Xs.data() + k * d;
        if (eta != F(1))
          for (std::size_t c = 0; c < d; ++c) x[c] = x[c] * eta;
        for (std::size_t u = 0; u < w; ++u) {
          const F h = std::max(slope[u] * t[k] + b[u], F(0));
          if (h == F(0)) continue;
          for (std::size_t c = 0; c < d; ++c) x[c] = x[c] + W[u * d + c] * h;
        }
        if (reread) ts[k] = stated_order_dot(r, std::vector<F>(x, x + d));
      }
      const auto same_floats = [](const std::vector<F>& a, const std::vector<F>& b) {
        return std::equal(a.begin(), a.end(), b.begin(), [](F x, F y) { return x == y || (std::isnan(x) && std::isnan(y)); });
      };
      BOOST_TEST((same_floats(Xk, Xs) && same_floats(tk, ts)), "d " << d << " w " << w << " tokens " << tokens << " reread " << reread);
    }
  }
}

}  // namespace

BOOST_AUTO_TEST_CASE(update_follows_its_stated_operations) {
  std::mt19937_64 gen(base_seed("float_replay_kernel") + 29);
  update_follows_its_statement<double>(gen);
  update_follows_its_statement<float>(gen);
}

namespace {

// one_direction on rows +-2^e_k r (zero rows included) of random r over many binades: the rows
// are recovered exactly as slope_k r', every slope is 0 or +-2^e, r' has its first nonzero
// coordinate in [1, 2), and two such matrices built from +-2^a r and +-2^b r share r'. Rows r
// and 3 r are not one direction.
template <class F>
void one_direction_shares_power_of_two_rows(std::mt19937_64& gen) {
  std::normal_distribution<double> normal;
  auto integer = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(gen); };
  for (int trial = 0; trial < 300; ++trial) {
    const int d = integer(1, 12);
    Vec<F> r(d);
    for (int c = 0; c < d; ++c)
      r[c] = integer(0, 3) == 0 ? F(0) : static_cast<F>(normal(gen) * std::exp2(integer(-20, 20)));
    if (r.isZero()) r[integer(0, d - 1)] = F(1.5);
    auto rows = [&](int w) {
      Mat<F> U(w, d);
      for (int k = 0; k < w; ++k) {
        const int kind = integer(0, 4);
        U.row(k) = kind == 0 ? Vec<F>(Vec<F>::Zero(d)).transpose()
                             : Vec<F>(r * static_cast<F>((kind == 1 ? -1 : 1) * std::exp2(integer(-6, 6)))).transpose();
      }
      if (U.isZero()) U.row(0) = r.transpose();
      return U;
    };
    const Mat<F> U = rows(integer(1, 5)), V = rows(integer(1, 5));
    const auto a = one_direction<F>(U), b = one_direction<F>(V);
    BOOST_TEST_REQUIRE((a && b), "trial " << trial);
    BOOST_TEST((a->r == b->r), "one representative, trial " << trial);
    Eigen::Index c = 0;
    while (a->r[c] == F(0)) ++c;
    BOOST_TEST((a->r[c] >= F(1) && a->r[c] < F(2)));
    for (Eigen::Index k = 0; k < U.rows(); ++k) {
      BOOST_TEST((U.row(k).transpose() == a->r * a->slope[k]), "row " << k << ", trial " << trial);
      int e = 0;
      BOOST_TEST((a->slope[k] == F(0) || std::abs(std::frexp(a->slope[k], &e)) == F(0.5)));
    }
    Mat<F> W(2, d);
    W.row(0) = r.transpose();
    W.row(1) = r.transpose() * F(3);
    BOOST_TEST(!one_direction<F>(W).has_value());
  }
}

}  // namespace

BOOST_AUTO_TEST_CASE(one_direction_shares_rows_that_differ_by_powers_of_two) {
  std::mt19937_64 gen(base_seed("float_replay_kernel") + 41);
  one_direction_shares_power_of_two_rows<double>(gen);
  one_direction_shares_power_of_two_rows<float>(gen);
}

// A scaling that would underflow a coordinate keeps the row itself: (2^600, 2^-500) scaled by
// 2^-600 would lose 2^-1100 (below the smallest double); scaling a subnormal up is exact.
BOOST_AUTO_TEST_CASE(canonical_direction_keeps_rows_it_cannot_scale_exactly) {
  Vec<double> r(2);
  r << std::ldexp(1.0, 600), std::ldexp(1.0, -500);
  BOOST_TEST((canonical_direction<double>(r) == r));
  r << std::ldexp(1.0, -1000), std::ldexp(1.0, -1074);
  const Vec<double> up = canonical_direction<double>(r);
  BOOST_TEST(up[0] == 1.0);
  BOOST_TEST(up[1] == std::ldexp(1.0, -74));
  BOOST_TEST((canonical_direction<double>(Vec<double>::Zero(3)) == Vec<double>::Zero(3)));
}

BOOST_AUTO_TEST_SUITE_END()
