#include <boost/test/unit_test.hpp>

#include <functional>
#include <string>

#include "seqi/certification/run_report.hpp"
#include "seqi/io/dataset_json.hpp"
#include "build_paths.hpp"

BOOST_AUTO_TEST_SUITE(test_certificate_soundness)

using namespace seqi;

// A certificate checks what it evaluates: a collapse block that differs from the record the
// softmax fast path evaluates through (v, a) must fail the certificate, never crash or pass.
namespace {

const Check* find_check(const Certificate& cert, const std::string& prefix) {
  for (const auto& c : cert.checks)
    if (c.name.rfind(prefix, 0) == 0) return &c;
  return nullptr;
}

const char* kCollapseCheck = "collapse attention is (rho, alpha I, v a^T)";

void expect_refused_after(const std::function<void(SelfAttention<Rational>&)>& tamper, const std::string& why) {
  const auto data = read_dataset_file(std::string(SEQI_DATASETS_DIR) + "/tiny-d2.json");
  auto built = build_interpolating_transformer(data, 7);
  tamper(built.model.blocks[built.record.collapse_block].sa);
  SoftmaxOptions opt;
  for (const auto& cert : {certify_construction_softmax(data, built, opt).certificate, certify_construction_hardmax(data, built, false).certificate}) {
    BOOST_TEST_CONTEXT(setting_name(cert.setting) << ", " << why) {
      BOOST_TEST(!cert.verified);
      const Check* c = find_check(cert, kCollapseCheck);
      BOOST_REQUIRE(c != nullptr);
      BOOST_TEST(!c->passed);
      BOOST_TEST(c->required);
      BOOST_TEST(c->detail.find(why) != std::string::npos, c->detail);
    }
  }
}

}  // namespace

BOOST_AUTO_TEST_CASE(untampered_collapse_passes_the_check_in_both_settings) {
  const auto data = read_dataset_file(std::string(SEQI_DATASETS_DIR) + "/tiny-d2.json");
  const auto built = build_interpolating_transformer(data, 7);
  for (const auto& cert : {certify_construction_softmax(data, built, {}).certificate, certify_construction_hardmax(data, built, false).certificate}) {
    BOOST_TEST(cert.verified);
    const Check* c = find_check(cert, kCollapseCheck);
    BOOST_REQUIRE(c != nullptr);
    BOOST_TEST(c->passed);
  }
}

BOOST_AUTO_TEST_CASE(collapse_with_a_multiple_of_identity_in_V_is_refused) {
  expect_refused_after([](auto& sa) { sa.V.alpha = 1; }, "V is not a single rank-one term");
}

BOOST_AUTO_TEST_CASE(collapse_without_a_rank_one_term_in_V_is_refused) {
  expect_refused_after([](auto& sa) { sa.V.terms.clear(); }, "V is not a single rank-one term");
}

BOOST_AUTO_TEST_CASE(collapse_reading_other_than_the_record_is_refused) {
  expect_refused_after([](auto& sa) { sa.V.terms.front().q *= Rational(2); }, "not the recorded a");
}

BOOST_AUTO_TEST_CASE(collapse_direction_other_than_the_record_is_refused) {
  expect_refused_after([](auto& sa) { sa.V.terms.front().p *= Rational(-1); }, "not the recorded v");
}

BOOST_AUTO_TEST_CASE(collapse_scores_other_than_alpha_identity_are_refused) {
  expect_refused_after([](auto& sa) { sa.A.terms.push_back(sa.V.terms.front()); }, "A is not alpha*I");
}

BOOST_AUTO_TEST_SUITE_END()
