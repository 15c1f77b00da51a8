#include <boost/test/unit_test.hpp>

#include <algorithm>
#include <string>

#include "seqi/certification/mean_collapse_checks.hpp"
#include "seqi/construction/balance_units.hpp"
#include "seqi/construction/hinge_interpolation.hpp"
#include "seqi/io/random_dataset.hpp"
#include "seqi/numbers/dyadic.hpp"
#include "float_run_support.hpp"
#include "seeded_oracles.hpp"

BOOST_AUTO_TEST_SUITE(test_mean_collapse)

using namespace seqi;

// lem:mean-collapse (proofs/mean-collapse.tex): classification data built without phases S and
// P, certified in both settings, against a forward pass written here from def:model; the
// fallback where two means coincide; tampered records refused; lem:relu-rescaling's 2.5 bound.

namespace {

// def:model with A = 0 or V = 0 in every attention layer (the only ones this construction
// has): x_i <- rho x_i + V mu(X), then x <- eta x + W relu(U x + b). Exact rationals.
std::vector<Point> oracle_forward(const Transformer<Rational>& model, std::vector<Point> X) {
  for (const auto& block : model.blocks) {
    BOOST_REQUIRE(block.sa.A.is_zero() || block.sa.V.is_zero());
    Point mu = Point::Zero(model.dimension);
    for (const auto& x : X) mu += x;
    mu /= Rational(static_cast<long>(X.size()));
    const Point shift = block.sa.V.apply(mu);
    for (auto& x : X) x = Point(x * block.sa.rho + (block.sa.V.is_zero() ? Point(Point::Zero(x.size())) : shift));
    for (auto& x : X) {
      Point next = x * block.ff.eta;
      for (Eigen::Index k = 0; k < block.ff.U.rows(); ++k) {
        const Rational pre = Rational(block.ff.U.row(k).dot(x.transpose().row(0))) + block.ff.b[k];
        if (pre > 0) next += block.ff.W.col(k) * pre;
      }
      x = next;
    }
  }
  return X;
}

Point pt(long x, long y) { return (Point(2) << Rational(x), Rational(y)).finished(); }

RandomDatasetSpec classification_spec(std::size_t N, int d) {
  RandomDatasetSpec spec;
  spec.N = N;
  spec.d = d;
  spec.n_min = 1;
  spec.n_max = 6;
  spec.m_max = 1;
  spec.max_denominator = 3;
  return spec;
}

}  // namespace

BOOST_AUTO_TEST_CASE(classification_data_take_the_mean_collapse_and_verify) {
  const std::uint64_t base = testing::base_seed("test_mean_collapse");
  for (std::uint64_t i = 0; i < 12; ++i) {
    const std::size_t N = 2 + i * 3;
    const int d = 2 + static_cast<int>(i % 5);
    const Dataset data = random_dataset(classification_spec(N, d), base + i);
    const Construction lighter = build_interpolating_transformer(data, base + i);
    const Construction built = build_interpolating_transformer(data, base + i, 1, {true, false});
    if (!built.record.mean_collapse) {  // only where two means coincide
      BOOST_TEST_MESSAGE("seed " << base + i << ": " << built.record.choices.front().what);
      BOOST_TEST(built.record.choices.front().what.find("have one mean") != std::string::npos);
      continue;
    }
    // The default keeps the lighter of the two constructions, and says so.
    const Construction leaders = build_interpolating_transformer(data, base + i, 1, {false});
    BOOST_TEST(lighter.model.stored_norm_sq() ==
               std::min(built.model.stored_norm_sq(), leaders.model.stored_norm_sq()));
    BOOST_TEST(lighter.record.choices.back().what.find("construction by least ||theta||^2") == 0u);
    const auto& rec = built.record.interpolation;
    if (rec.by_hinges) {  // lem:hinge-interpolation: hinges + 2 units, four per block
      BOOST_TEST(rec.runs.empty());
      BOOST_TEST(rec.hinges + 1 <= N);
      BOOST_TEST(built.model.blocks.size() == (rec.hinges + (N > 1 ? 2 : 1) + 3) / 4);
    } else {
      BOOST_TEST(built.model.blocks.size() == rec.runs.size() + (rec.has_offset() ? 1 : 0));
      BOOST_TEST(rec.runs.size() <= N);
    }
    for (std::size_t j = 0; j < N; ++j) {
      const auto out = oracle_forward(built.model, std::vector<Point>(data.pairs[j].input.begin(),
                                                                      data.pairs[j].input.end()));
      for (const auto& y : out) BOOST_TEST(equal_points(y, data.pairs[j].output[0]), "seed " << base + i << ", sequence " << j + 1);
    }
    const RunReport hard = certify_construction_hardmax(data, built, false);
    BOOST_TEST(hard.certificate.verified, "seed " << base + i);
    const RunReport soft = certify_construction_softmax(data, built, {});
    BOOST_TEST(soft.certificate.verified, "seed " << base + i);
    BOOST_REQUIRE(soft.certificate.softmax);
    BOOST_TEST(soft.certificate.softmax->tau_unbounded);
    BOOST_TEST(!hard.certificate.lemma_p);  // no leader is selected: Lemma P is not used
  }
}

// The certification carries one token per sequence after the collapse's attention; the float
// statements it makes (decisions, deltas, counts) equal those of the standalone bound, which
// carries every token, and every outcome is stated for all n_j tokens.
BOOST_AUTO_TEST_CASE(one_token_per_sequence_after_the_collapse_changes_no_statement) {
  const std::uint64_t base = testing::base_seed("test_mean_collapse_one_token");
  std::size_t checked = 0;
  for (std::uint64_t i = 0; i < 6; ++i) {
    const Dataset data = random_dataset(classification_spec(4 + i * 5, 2 + static_cast<int>(i % 3)), base + i);
    const Construction built = build_interpolating_transformer(data, base + i, 1, {true, false});
    if (!built.record.mean_collapse) continue;
    ++checked;
    const RunReport hard = certify_construction_hardmax(data, built, false);
    const Certificate& cert = hard.certificate;
    BOOST_TEST(cert.verified, "seed " << base + i);
    const auto kept = std::find_if(cert.checks.begin(), cert.checks.end(),
                                   [](const Check& c) { return c.name.find("carries one per sequence") != std::string::npos; });
    BOOST_REQUIRE(kept != cert.checks.end());
    BOOST_TEST(kept->passed);
    BOOST_REQUIRE(cert.sequences.size() == data.pairs.size());
    for (std::size_t j = 0; j < data.pairs.size(); ++j) {
      BOOST_TEST(cert.sequences[j].n == data.pairs[j].input.size());
      BOOST_TEST(cert.sequences[j].target_of.size() == data.pairs[j].input.size());
    }
    const auto every_token = bound_float_runs(built.model, data, Setting::hardmax, Rational(1), 64, 1,
                                              {kBinary64, kBinary32});
    BOOST_REQUIRE(hard.float_statement && hard.float32_statement);
    BOOST_TEST_CONTEXT("seed " << base + i) {
      seqi_test::float_run::expect_same_facts(*hard.float_statement, every_token[0], false);
      seqi_test::float_run::expect_same_facts(*hard.float32_statement, every_token[1], false);
    }
  }
  BOOST_TEST(checked >= 3u);
}

// Where the leader construction is abandoned part way through its placement hats, the norm it
// reports ("at least") lies between the mean collapse's and the full leader construction's.
BOOST_AUTO_TEST_CASE(an_abandoned_leader_construction_reports_a_true_lower_bound) {
  const std::uint64_t base = testing::base_seed("test_mean_collapse_abandoned");
  for (std::uint64_t i = 0; i < 2; ++i) {
    RandomDatasetSpec spec = classification_spec(300 + 40 * i, 3 + static_cast<int>(i));
    spec.n_min = 3;
    const Dataset data = random_dataset(spec, base + i);
    const Construction kept = build_interpolating_transformer(data, base + i);
    BOOST_TEST_REQUIRE(kept.record.mean_collapse, "seed " << base + i);
    const std::string& what = kept.record.choices.back().what;
    const std::size_t at = what.find("leaders at least ");
    BOOST_TEST_REQUIRE(at != std::string::npos, what);
    BOOST_TEST(what.find("(not completed)") != std::string::npos, what);
    const double reported = std::stod(what.substr(at + std::string("leaders at least ").size()));
    const Construction leaders = build_interpolating_transformer(data, base + i, 1, {false});
    const double full = leaders.model.stored_norm_sq().convert_to<double>();
    const double mean = kept.model.stored_norm_sq().convert_to<double>();
    BOOST_TEST_MESSAGE("seed " << base + i << ": mean " << mean << ", reported " << reported << ", full " << full);
    BOOST_TEST(reported >= mean * (1 - 1e-3), what);  // four digits are printed
    BOOST_TEST(reported < full * (1 - 1e-3), what);  // stopped before its last blocks
  }
}

BOOST_AUTO_TEST_CASE(equal_means_fall_back_to_the_leader_construction) {
  Dataset data;
  data.name = "equal-means";
  data.dimension = 2;
  SequencePair a, b;  // both means are (1, 0)
  a.input = {pt(0, 0), pt(2, 0)};
  b.input = {pt(1, 1), pt(1, -1)};
  a.output = {pt(5, 5)};
  b.output = {pt(-5, 3)};
  data.pairs = {a, b};
  const Construction built = build_interpolating_transformer(data, 7);
  BOOST_TEST(!built.record.mean_collapse);
  BOOST_TEST(built.record.choices.front().what ==
             "mean collapse (lem:mean-collapse) not used: sequences 1 and 2 have one mean");
  BOOST_TEST(certify_construction_hardmax(data, built, false).certificate.verified);
}

// Collinear targets, (0, 0) midway between the others, read between them along every flat-hat
// direction: with this seed no flat-hat reading of the mean collapse exists (the long sweep's
// seed 20245127). The leader construction is built instead, and says why.
BOOST_AUTO_TEST_CASE(a_mean_collapse_that_cannot_be_built_falls_back_to_the_leaders) {
  Dataset data;
  data.name = "collinear targets";
  data.dimension = 2;
  SequencePair a, b, c;
  a.input = {pt(0, -1)};
  b.input = {pt(1, 0)};
  c.input = {pt(0, 1)};
  a.output = {pt(-1, 1)};
  b.output = {pt(1, -1)};
  c.output = {pt(0, 0)};
  data.pairs = {a, b, c};
  const Construction built = build_interpolating_transformer(data, 20245127);
  BOOST_TEST(!built.record.mean_collapse);
  const bool said = std::any_of(built.record.choices.begin(), built.record.choices.end(), [](const auto& g) {
    return g.what.find("mean collapse (lem:mean-collapse) not built: ") == 0;
  });
  BOOST_TEST(said);
  BOOST_TEST(certify_construction_hardmax(data, built, false).certificate.verified);
}

BOOST_AUTO_TEST_CASE(tampered_mean_collapse_records_are_refused) {
  const Dataset data = random_dataset(classification_spec(8, 3), testing::base_seed("test_mean_collapse") + 100);
  const Construction built = build_interpolating_transformer(data, 3, 1, {true, false});
  BOOST_REQUIRE(built.record.mean_collapse);
  {
    Construction moved = built;  // one collapse value off by 2^-60
    moved.record.interpolation.z[3] += pow2(-60);
    Certificate cert;
    BOOST_TEST(!add_mean_collapse_checks(cert, data, moved));
    BOOST_TEST(!certify_construction_hardmax(data, moved, false).certificate.verified);
  }
  {
    Construction scored = built;  // the collapse attends instead of averaging
    scored.model.blocks.front().sa.A = StructuredMatrix<Rational>::scaled_identity(Rational(1));
    Certificate cert;
    BOOST_TEST(!add_mean_collapse_checks(cert, data, scored));
    BOOST_TEST(!certify_construction_softmax(data, scored, {}).certificate.verified);
  }
}

// The collapse-value check reads int64 tokens (integer_dot) and GMP tokens (decoded) alike: a
// record off by 2^-60 in either kind of sequence is refused.
BOOST_AUTO_TEST_CASE(collapse_values_are_checked_on_int64_and_gmp_tokens) {
  Dataset data = random_dataset(classification_spec(8, 3), testing::base_seed("test_mean_collapse") + 101);
  TokenSequence big;  // sequence 1 beyond int64: its tokens fall back to GMP Points
  for (Point x : data.pairs[0].input) {
    x[0] += Rational(Integer(1) << 70);
    big.push_back(x);
  }
  data.pairs[0].input = big;
  BOOST_REQUIRE(!data.pairs[0].input.compact());
  BOOST_REQUIRE(data.pairs[1].input.compact());
  const Construction built = build_interpolating_transformer(data, 3, 1, {true, false});
  BOOST_REQUIRE(built.record.mean_collapse);
  Certificate ok;
  BOOST_TEST(add_mean_collapse_checks(ok, data, built));
  for (std::size_t j : {0u, 1u}) {
    Construction moved = built;
    moved.record.interpolation.z[j] += pow2(-60);
    Certificate cert;
    BOOST_TEST(!add_mean_collapse_checks(cert, data, moved), "sequence " << j + 1);
  }
}

BOOST_AUTO_TEST_CASE(balanced_units_are_within_the_rescaling_bound) {
  std::mt19937_64 g(testing::base_seed("test_mean_collapse") + 200);
  std::uniform_int_distribution<int> e(-40, 40);
  std::uniform_int_distribution<long> c(1, 1000);
  for (int trial = 0; trial < 2000; ++trial) {
    FeedForward<Rational> ff;
    ff.U = Mat<Rational>::Constant(1, 1, Rational(c(g)) * pow2(e(g)));
    ff.b = Vec<Rational>::Constant(1, Rational(c(g)) * pow2(e(g)));
    ff.W = Mat<Rational>::Constant(1, 1, Rational(c(g)) * pow2(e(g)));
    const Rational in = ff.U(0, 0) * ff.U(0, 0) + ff.b[0] * ff.b[0], out = ff.W(0, 0) * ff.W(0, 0);
    const FeedForward<Rational> before = ff;
    balance_unit(ff, 0, in, out);
    const Rational after = ff.U(0, 0) * ff.U(0, 0) + ff.b[0] * ff.b[0] + ff.W(0, 0) * ff.W(0, 0);
    BOOST_TEST(after <= in + out);
    // after <= 2.5 sqrt(in out), squared: after^2 <= 6.25 in out
    BOOST_TEST(after * after <= Rational(25, 4) * in * out, "trial " << trial);
    for (const long x : {-7L, -1L, 0L, 1L, 5L}) {  // the same map at a few points, both sides of the kink
      const Rational kink = -before.b[0] / before.U(0, 0);
      const auto at = [&](const FeedForward<Rational>& f, const Rational& t) {
        const Rational pre = f.U(0, 0) * t + f.b[0];
        return pre > 0 ? Rational(f.W(0, 0) * pre) : Rational(0);
      };
      BOOST_TEST(at(ff, kink + Rational(x)) == at(before, kink + Rational(x)));
    }
  }
}

// lem:hinge-interpolation on data with N <= d (the planned directions apply): the exact reading
// is constant on the targets, the hinges are kept where lighter than the flat hats (and then
// certified, with fewer blocks than sequences), and an independent exact forward pass of the
// built model (oracle_forward) sends every sequence onto its target.
BOOST_AUTO_TEST_CASE(hinges_interpolate_small_classifications_in_fewer_blocks) {
  const std::uint64_t base = testing::base_seed("test_mean_collapse_hinges");
  std::size_t hinged = 0;
  for (std::uint64_t i = 0; i < 8; ++i) {
    const std::size_t N = 3 + i;
    const int d = static_cast<int>(N) + 2;
    Dataset data = random_dataset(classification_spec(N, d), base + i);
    std::vector<Point> targets;
    for (const auto& pair : data.pairs) targets.push_back(pair.output[0]);
    const auto r = reading_constant_on_targets(targets);
    BOOST_TEST_REQUIRE(r.has_value(), "seed " << base + i);
    BOOST_TEST(!r->isZero());
    for (const auto& y : targets) BOOST_TEST(dot(*r, y) == dot(*r, targets.front()), "seed " << base + i);
    const Construction built = build_interpolating_transformer(data, base + i);
    if (!built.record.mean_collapse || !built.record.interpolation.by_hinges) continue;
    ++hinged;
    const auto& rec = built.record.interpolation;
    BOOST_TEST(built.model.blocks.size() == (rec.hinges + 2 + 3) / 4);
    BOOST_TEST(built.model.blocks.size() < N);
    BOOST_TEST(dot(rec.reading, rec.v) == 1);
    BOOST_TEST(certify_construction_hardmax(data, built, false).certificate.verified, "seed " << base + i);
    for (std::size_t j = 0; j < N; ++j) {
      const auto out = oracle_forward(built.model, std::vector<Point>(data.pairs[j].input.begin(),
                                                                      data.pairs[j].input.end()));
      for (const auto& y : out) BOOST_TEST(equal_points(y, data.pairs[j].output[0]), "seed " << base + i << ", sequence " << j + 1);
    }
  }
  std::cout << "hinge interpolation kept on " << hinged << " of 8 datasets\n";
  BOOST_TEST(hinged >= 4u);
}

// Targets whose differences span the whole space admit no reading constant on them.
BOOST_AUTO_TEST_CASE(no_constant_reading_when_the_targets_differences_span_the_space) {
  BOOST_TEST(!reading_constant_on_targets({pt(0, 0), pt(1, 0), pt(0, 1)}).has_value());
  const auto r = reading_constant_on_targets({pt(1, 2), pt(3, 6)});  // differences along (1, 2)
  BOOST_TEST_REQUIRE(r.has_value());
  BOOST_TEST(dot(*r, pt(1, 2)) == 0);
  BOOST_TEST(!r->isZero());
}

BOOST_AUTO_TEST_SUITE_END()
