#include <boost/test/unit_test.hpp>

#include <algorithm>
#include <cstdlib>
#include <iostream>
#include <random>
#include <string>
#include <vector>

#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include <boost/multiprecision/mpfr.hpp>
#include <nlohmann/json.hpp>

#include "seqi/certification/bisection.hpp"
#include "seqi/certification/distance_enclosure.hpp"
#include "seqi/forward/general_attention.hpp"
#include "seqi/forward/general_feed_forward.hpp"
#include "seqi/certification/general_models.hpp"
#include "seqi/forward/softmax_weights.hpp"
#include "seqi/io/random_model.hpp"
#include "general_models_support.hpp"
#include "build_paths.hpp"

BOOST_AUTO_TEST_SUITE(test_general_models)

using namespace seqi;
using namespace seqi_test::general_models;

namespace {

// Hardmax in exact rationals: pi_il = 1/|C_i| on C_i = argmax_l <A x_i, x_l>.
Sequence hardmax_forward_exact(const Transformer<Rational>& m, Sequence X) {
  for (const auto& b : m.blocks) {
    Sequence Y;
    for (const auto& xi : X) {
      const Point Axi = b.sa.A.apply(xi);
      Rational best = dot(Axi, X[0]);
      for (const auto& xl : X) best = std::max(best, dot(Axi, xl));
      Point mix = Point::Zero(xi.size());
      long count = 0;
      for (const auto& xl : X)
        if (dot(Axi, xl) == best) mix += xl, ++count;
      Y.push_back(xi * b.sa.rho + b.sa.V.apply(Point(mix / Rational(count))));
    }
    for (auto& y : Y) y = b.ff.apply(y);
    X = Y;
  }
  return X;
}

// Squared Hausdorff distance between the outputs (high precision) and exact targets.
Hp hausdorff_sq_hp(const std::vector<HpVec>& O, const Sequence& Y) {
  auto d2 = [](const HpVec& o, const Point& y) {
    Hp s = 0;
    for (std::size_t k = 0; k < o.size(); ++k) s += (o[k] - hp(y[static_cast<Eigen::Index>(k)])) * (o[k] - hp(y[static_cast<Eigen::Index>(k)]));
    return s;
  };
  Hp h = 0;
  for (const auto& o : O) {
    Hp best = d2(o, Y[0]);
    for (const auto& y : Y) best = std::min(best, d2(o, y));
    h = std::max(h, best);
  }
  for (const auto& y : Y) {
    Hp best = d2(O[0], y);
    for (const auto& o : O) best = std::min(best, d2(o, y));
    h = std::max(h, best);
  }
  return h;
}

// Exact rational targets within 2^-40 per coordinate of the replayed outputs, as a set.
Sequence targets_near(const std::vector<HpVec>& O) {
  Sequence Y;
  const Hp scale = pow(Hp(2), 40);
  for (const auto& o : O) {
    Point y(static_cast<Eigen::Index>(o.size()));
    for (std::size_t k = 0; k < o.size(); ++k) {
      const Hp r = round(o[k] * scale);
      Integer z;
      mpfr_get_z(z.backend().data(), r.backend().data(), MPFR_RNDN);  // r is an integer: exact
      y[static_cast<Eigen::Index>(k)] = Rational(z) / Rational(Integer(1) << 40);
    }
    if (std::none_of(Y.begin(), Y.end(), [&](const Point& z) { return equal_points(z, y); })) Y.push_back(y);
  }
  return Y;
}

Sequence random_tokens(TestRng& r, int d, std::size_t n) {
  Sequence X;
  while (X.size() < n) {
    Point x = r.point(d, 4);
    if (std::none_of(X.begin(), X.end(), [&](const Point& z) { return equal_points(z, x); })) X.push_back(x);
  }
  return X;
}

Dataset one_pair(int d, const Sequence& in, const Sequence& out) {
  Dataset data;
  data.dimension = d;
  data.pairs.push_back({TokenSequence(in), TokenSequence(out)});
  return data;
}

const std::string& verdict0(const Certificate& c) { return c.general->sequences.at(0).verdict; }

// The softmax verification at tau of the one sequence X -> Y gives the verdict "exact".
void expect_exact_softmax(const Transformer<Rational>& model, const Sequence& X, const Sequence& Y, const Rational& tau) {
  GeneralOptions opt;
  opt.tau = tau;
  const Certificate c = certify_general_softmax(one_pair(model.dimension, X, Y), model, opt).certificate;
  BOOST_TEST(c.verified, c.general->sequences.at(0).detail);
  BOOST_TEST(verdict0(c) == "exact", c.general->sequences.at(0).detail);
}

}  // namespace

// ---- random general models against the independent replay -----------------------------------

BOOST_AUTO_TEST_CASE(random_softmax_models_verified_near_and_refused_far) {
  TestRng r{{std::mt19937_64(base_seed("random_softmax_models"))}};
  const Rational delta = q(1, 1000000);
  std::size_t verified = 0, refused = 0, moved_checked = 0;
  for (int trial = 0; trial < 24; ++trial) {
    const int d = static_cast<int>(r.integer(2, 8));
    const auto L = static_cast<std::size_t>(r.integer(1, 8));
    const auto n = static_cast<std::size_t>(r.integer(1, 16));
    const Transformer<Rational> model = random_model(r, d, L);
    const Rational tau = r.integer(0, 1) ? Rational(1) : q(1, 2);
    const Sequence X = random_tokens(r, d, n);
    const auto O = softmax_forward_hp(model, X, tau);
    const Sequence Y = targets_near(O);
    BOOST_TEST_CONTEXT("trial " << trial << " d=" << d << " L=" << L << " n=" << n) {
      BOOST_TEST_REQUIRE(hausdorff_sq_hp(O, Y) <= hp(delta * delta / 4));
      GeneralOptions opt;
      opt.tau = tau;
      opt.tolerance = delta;
      const Certificate near = certify_general_softmax(one_pair(d, X, Y), model, opt).certificate;
      BOOST_TEST(near.verified, verdict0(near) << ": " << near.general->sequences[0].detail);
      verified += near.verified;
      // One target moved by 1000 delta in one coordinate.
      Sequence moved = Y;
      const auto k = static_cast<std::size_t>(r.integer(0, static_cast<long>(Y.size()) - 1));
      moved[k][r.integer(0, d - 1)] += 1000 * delta;
      const Hp h2 = hausdorff_sq_hp(O, moved);
      const Certificate far = certify_general_softmax(one_pair(d, X, moved), model, opt).certificate;
      if (h2 > hp(delta * delta)) BOOST_TEST(!far.verified, "verified although H^2 = " << h2.str(10));
      if (h2 > hp(4 * delta * delta)) {
        ++moved_checked;
        BOOST_TEST(verdict0(far) == "not interpolating", verdict0(far) << ": " << far.general->sequences[0].detail);
        refused += verdict0(far) == "not interpolating";
      }
      // Certified enclosure of H^2 contains the replayed value.
      const auto& s = near.general->sequences[0];
      const Hp h2near = hausdorff_sq_hp(O, Y);
      BOOST_TEST(between_hp(s.hausdorff_sq_lo, s.hausdorff_sq_hi, h2near));
    }
  }
  std::cout << "random softmax models: " << verified << " of 24 verified near, " << refused << " of " << moved_checked
            << " far refused\n";
  BOOST_TEST(moved_checked > 12u);
}

BOOST_AUTO_TEST_CASE(random_hardmax_models_exact_within_and_refused) {
  TestRng r{{std::mt19937_64(base_seed("random_hardmax_models"))}};
  const Rational delta = q(1, 1000000);
  for (int trial = 0; trial < 24; ++trial) {
    const int d = static_cast<int>(r.integer(2, 8));
    const auto L = static_cast<std::size_t>(r.integer(1, 8));
    const auto n = static_cast<std::size_t>(r.integer(1, 16));
    const Transformer<Rational> model = random_model(r, d, L);
    const Sequence X = random_tokens(r, d, n);
    const Sequence out = hardmax_forward_exact(model, X);
    Sequence Y;
    for (const auto& y : out)
      if (std::none_of(Y.begin(), Y.end(), [&](const Point& z) { return equal_points(z, y); })) Y.push_back(y);
    BOOST_TEST_CONTEXT("trial " << trial << " d=" << d << " L=" << L << " n=" << n) {
      GeneralOptions opt;
      const Certificate exact = certify_general_hardmax(one_pair(d, X, Y), model, opt).certificate;
      BOOST_TEST(exact.verified);
      BOOST_TEST(verdict0(exact) == "exact");
      Sequence near = Y;
      near[0][0] += delta / 2;
      BOOST_TEST(!certify_general_hardmax(one_pair(d, X, near), model, opt).certificate.verified);  // delta = 0: exact only
      opt.tolerance = delta;
      const Certificate within = certify_general_hardmax(one_pair(d, X, near), model, opt).certificate;
      BOOST_TEST(within.verified);
      BOOST_TEST(verdict0(within) == "within delta");
      BOOST_TEST(within.general->sequences[0].hausdorff_sq_hi == delta * delta / 4);  // exact: the one moved target
      Sequence far = Y;
      far[0][0] += 1000 * delta;
      bool other_close = false;  // another output within delta of the moved target
      for (const auto& o : out) other_close |= norm_sq(Point(o - far[0])) <= delta * delta;
      const Certificate refused = certify_general_hardmax(one_pair(d, X, far), model, opt).certificate;
      if (!other_close) {  // the moved target is farther than delta from every output
        BOOST_TEST(!refused.verified);
        BOOST_TEST(verdict0(refused) == "not interpolating");
      }
    }
  }
}

// ---- the audit's exact cases ------------------------------------------------------------------

BOOST_AUTO_TEST_CASE(one_token_sequence_is_exact) {
  TestRng r{{std::mt19937_64(7)}};
  const Transformer<Rational> model = random_model(r, 3, 4);
  const Sequence X{Point(Vec<Rational>::Constant(3, q(1, 3)))};
  expect_exact_softmax(model, X, hardmax_forward_exact(model, X), q(1, 7));  // one token: both weights are 1
}

BOOST_AUTO_TEST_CASE(tied_scores_give_uniform_weights_exactly) {
  // A = p q^T with p.x_l = 1 for every token: s_il = (q.x_i)(p.x_l) ties over l.
  Transformer<Rational> model{2, {}};
  Block<Rational> b;
  b.sa.A = StructuredMatrix<Rational>::rank_one(Point(Vec<Rational>::Unit(2, 1)), Point(Vec<Rational>::Unit(2, 0)));
  b.sa.V = StructuredMatrix<Rational>::scaled_identity(q(1, 3));
  b.sa.rho = 1;
  b.ff.U = Mat<Rational>::Zero(0, 2);
  b.ff.W = Mat<Rational>::Zero(2, 0);
  b.ff.b = Vec<Rational>(0);
  model.blocks.push_back(b);
  Sequence X;
  for (long a : {0L, 1L, 5L}) X.push_back((Point(2) << q(a), q(1)).finished());
  expect_exact_softmax(model, X, hardmax_forward_exact(model, X), q(1, 1000));  // ties: hardmax is uniform too
}

BOOST_AUTO_TEST_CASE(identity_value_mean_shift_and_collapsed_tokens_are_exact) {
  // Block 1: A = 0, V = I (mean shift), then a FF that sends every token to the point (1, 2)
  // (eta = 0, U = 0, b = 1, W = (1, 2)^T). Block 2: A = I/1000, V = I on equal tokens (the
  // weights do not matter), then a ReLU whose breakpoint is exactly the token's reading.
  Transformer<Rational> model{2, {}};
  Block<Rational> b1;
  b1.sa.V = StructuredMatrix<Rational>::scaled_identity(1);
  b1.ff.eta = 0;
  b1.ff.U = Mat<Rational>::Zero(1, 2);
  b1.ff.b = Vec<Rational>::Constant(1, 1);
  b1.ff.W = (Mat<Rational>(2, 1) << 1, 2).finished();
  Block<Rational> b2;
  b2.sa.A = StructuredMatrix<Rational>::scaled_identity(q(1, 1000));
  b2.sa.V = StructuredMatrix<Rational>::scaled_identity(1);
  b2.ff.U = (Mat<Rational>(1, 2) << 1, 0).finished();
  b2.ff.b = Vec<Rational>::Constant(1, -2);  // reading 2 of the point (2, 4): exactly on the breakpoint
  b2.ff.W = (Mat<Rational>(2, 1) << 1, 1).finished();
  model.blocks = {b1, b2};
  const Sequence X{(Point(2) << 0, 0).finished(), (Point(2) << 1, q(-3, 7)).finished(),
                   (Point(2) << q(1, 8), q(1, 1000)).finished()};
  expect_exact_softmax(model, X, {(Point(2) << 2, 4).finished()}, q(1, 10));
  // the mean-shift block alone with V = I: x_i + mean, exact.
  Transformer<Rational> shift{2, {b1}};
  shift.blocks[0].ff = b2.ff;
  shift.blocks[0].ff.U = Mat<Rational>::Zero(0, 2);
  shift.blocks[0].ff.b = Vec<Rational>(0);
  shift.blocks[0].ff.W = Mat<Rational>::Zero(2, 0);
  expect_exact_softmax(shift, X, hardmax_forward_exact(shift, X), q(1, 10));
}

BOOST_AUTO_TEST_CASE(rank_one_value_collapse_returns_exact_points_through_a_flat_relu) {
  // V = v a^T with exact inputs: the enclosure lies on the exact direction v; a FF with
  // eta = 1 and unit W = -v, U = a^T... annihilates v: x - v (a.x) + v * 0 leaves p exact.
  Transformer<Rational> model{2, {}};
  Block<Rational> b;
  const Point v = (Point(2) << 1, 0).finished(), a = (Point(2) << 1, 0).finished();
  b.sa.A = StructuredMatrix<Rational>::scaled_identity(1);
  b.sa.V = StructuredMatrix<Rational>::rank_one(v, a);
  b.sa.rho = 1;
  // FF(x) = x - v relu(a.x + 10) (a.x + 10 > 0 everywhere here): kills the first coordinate.
  b.ff.U = a.transpose();
  b.ff.b = Vec<Rational>::Constant(1, 10);
  b.ff.W = -v;
  model.blocks = {b};
  const Sequence X{(Point(2) << 0, 1).finished(), (Point(2) << 1, 2).finished(), (Point(2) << q(1, 2), 3).finished()};
  const Sequence Y{(Point(2) << -10, 1).finished(), (Point(2) << -10, 2).finished(), (Point(2) << -10, 3).finished()};
  expect_exact_softmax(model, X, Y, q(1, 3));
}

BOOST_AUTO_TEST_CASE(refinement_raises_precision_until_decided_and_reports_an_exhausted_budget) {
  TestRng r{{std::mt19937_64(base_seed("refinement"))}};
  const int d = 3;
  Transformer<Rational> model = random_model(r, d, 3);
  for (auto& b : model.blocks) b.sa.A = StructuredMatrix<Rational>::scaled_identity(1);  // never exact weights
  const Sequence X = random_tokens(r, d, 6);
  const Rational tau = q(1, 2);
  const auto O = softmax_forward_hp(model, X, tau);
  const Sequence Y = targets_near(O);
  GeneralOptions opt;
  opt.tau = tau;
  opt.tolerance = q(1, 1000000000);  // 1e-9: 16-bit enclosures are far too wide
  opt.precision_bits = 16;
  const Certificate refined = certify_general_softmax(one_pair(d, X, Y), model, opt).certificate;
  BOOST_TEST(refined.verified, refined.general->sequences[0].detail);
  BOOST_TEST(refined.general->sequences[0].passes > 1u);
  BOOST_TEST(refined.general->sequences_refined == 1u);
  BOOST_TEST(refined.general->budget_exhausted == 0u);
  opt.refinements = 0;
  opt.bisections = 0;
  const Certificate spent = certify_general_softmax(one_pair(d, X, Y), model, opt).certificate;
  BOOST_TEST(!spent.verified);
  BOOST_TEST(verdict0(spent) == "undecided within budget");
  BOOST_TEST(spent.general->budget_exhausted == 1u);
  BOOST_TEST(spent.general->sequences[0].detail.find("output token") != std::string::npos);
  BOOST_TEST(spent.general->sequences[0].detail.find("block") != std::string::npos, spent.general->sequences[0].detail);
  BOOST_TEST(spent.general->sequences[0].bisection_cells == 0u);
  // With bisection the same budget runs cells; rounding at 16 bits is what is too wide, so
  // the cells do not decide it either, and the report says so.
  opt.bisections = 3;
  const Certificate cells = certify_general_softmax(one_pair(d, X, Y), model, opt).certificate;
  BOOST_TEST(verdict0(cells) == "undecided within budget");
  BOOST_TEST(cells.general->sequences[0].bisection_cells == 4u);
  BOOST_TEST(cells.general->sequences_bisected == 1u);
  BOOST_TEST(cells.general->sequences[0].detail.find("4 bisection cells") != std::string::npos,
             cells.general->sequences[0].detail);
}

// lem:bisection: the union of the cells' distance enclosures holds the true distance, and a
// verdict decided on it agrees with the independent replay.
BOOST_AUTO_TEST_CASE(bisection_cells_cover_the_true_distance) {
  TestRng r{{std::mt19937_64(base_seed("bisection"))}};
  std::size_t bisected = 0;
  for (int trial = 0; trial < 12; ++trial) {
    const int d = static_cast<int>(r.integer(2, 5));
    const Transformer<Rational> model = random_model(r, d, static_cast<std::size_t>(r.integer(1, 4)));
    const Rational tau = q(1, 2);
    const Sequence X = random_tokens(r, d, static_cast<std::size_t>(r.integer(2, 8)));
    const auto O = softmax_forward_hp(model, X, tau);
    Sequence Y = targets_near(O);
    if (r.integer(0, 1)) Y[0][0] += q(1, 1000);  // half the trials: a target off by 1e-3
    const Hp h2 = hausdorff_sq_hp(O, Y);
    const Rational delta = q(1, 10000);
    BOOST_TEST_CONTEXT("trial " << trial) {
      const auto b = bisect_sequence(model, SequencePair{TokenSequence(X), TokenSequence(Y)}, tau, 20, 0, delta, 6);
      if (!b) continue;  // an exact pass
      ++bisected;
      BOOST_TEST(between_hp(b->distance.hausdorff_sq_lo, b->distance.hausdorff_sq_hi, h2));
      if (b->verdict == SequenceVerdict::within_delta) BOOST_TEST(h2 <= hp(delta * delta));
      if (b->verdict == SequenceVerdict::not_interpolating) BOOST_TEST(h2 > hp(delta * delta));
      BOOST_TEST(b->cells >= 1u);
      BOOST_TEST(b->cells <= 7u);
    }
  }
  std::cout << "bisection: " << bisected << " of 12 sequences had enclosures to split\n";
  BOOST_TEST(bisected > 6u);
}


// ---- the CLI: --tolerance on a user's model ---------------------------------------------------

namespace {

struct CliRun {
  int code = -1;
  std::string out;
};

std::string slurp(const std::filesystem::path& p) {
  std::ifstream in(p);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// verify with arguments (no shell metacharacters in them); stdout captured.
CliRun run_verify_exe(const std::string& args, const std::filesystem::path& dir) {
  const auto out = dir / "out.txt";
  const std::string cmd = std::string(SEQI_VERIFY_EXE) + " " + args + " >" + out.string() + " 2>&1 </dev/null";
  const int status = std::system(cmd.c_str());
  BOOST_REQUIRE(status != -1 && WIFEXITED(status));
  return {WEXITSTATUS(status), slurp(out)};
}

}  // namespace

BOOST_AUTO_TEST_CASE(cli_tolerance_on_a_perturbed_model) {
  const auto dir = std::filesystem::temp_directory_path() / ("seqi-general-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  const std::string data = std::string(SEQI_DATASETS_DIR) + "/tiny-d2.json";
  const auto model = dir / "m.json";
  BOOST_TEST_REQUIRE(run_verify_exe("--save-model " + model.string() + " " + data, dir).code == 0);
  auto j = nlohmann::json::parse(slurp(model));
  auto& w = j.at("blocks").back().at("feed_forward").at("W").at(0).at(0);
  w = to_string(*parse_rational(w.get<std::string>()) + q(1, 1000000000));  // outputs move by about 1e-9
  const auto perturbed = dir / "p.json";
  std::ofstream(perturbed) << j.dump();
  const std::string m = " --model " + perturbed.string() + " ";
  for (const std::string setting : {"", "--softmax --tau 1/1000 "}) {
    BOOST_TEST_CONTEXT(setting) {
      const CliRun exact = run_verify_exe(setting + m + data, dir);
      BOOST_TEST(exact.code == 1, exact.out);
      BOOST_TEST(exact.out.find("not interpolating") != std::string::npos, exact.out);
      const CliRun within = run_verify_exe(setting + "--tolerance 1e-6 --json" + m + data, dir);
      BOOST_TEST_REQUIRE(within.code == 0, within.out);
      const auto js = nlohmann::json::parse(within.out);
      BOOST_TEST(js.at("general").at("tolerance") == "1/1000000");
      const auto& seqs = js.at("general").at("sequences");
      BOOST_TEST(seqs.size() == 2u);
      bool some_within = false;
      for (const auto& sq : seqs) {
        some_within |= sq.at("verdict") == "within delta";
        const Rational hi = *parse_rational(sq.at("hausdorff_sq").at(1).get<std::string>());
        BOOST_TEST(hi <= q(1, 1000000000000));
      }
      BOOST_TEST(some_within);
      BOOST_TEST(run_verify_exe(setting + "--tolerance 1e-12" + m + data, dir).code == 1);
    }
  }
  BOOST_TEST(run_verify_exe("--tolerance -1" + m + data, dir).code == 2);
  BOOST_TEST(run_verify_exe("--tolerance abc" + m + data, dir).code == 2);
  BOOST_TEST(run_verify_exe("--tolerance 1/10 " + data, dir).code == 2);  // nothing to tolerate: no --model
  std::filesystem::remove_all(dir);
}

BOOST_AUTO_TEST_SUITE_END()
