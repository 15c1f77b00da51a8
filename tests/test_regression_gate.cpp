#include <boost/test/unit_test.hpp>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "regression_gate.hpp"
#include "seqi/io/dataset_json.hpp"
#include "build_paths.hpp"

BOOST_AUTO_TEST_SUITE(test_regression_gate)

using namespace seqi;

namespace {

Dataset tiny() { return read_dataset_file(std::string(SEQI_DATASETS_DIR) + "/tiny-d2.json"); }

RegressionRecord record_of(const Dataset& data, const Transformer<Rational>& model) {
  return regression_record("tiny-d2.json", certify_model_hardmax(data, model).certificate, certify_model_hardmax(data, model).certificate);
}

std::string slurp(const std::string& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

}  // namespace

BOOST_AUTO_TEST_CASE(gate_passes_the_construction_and_rejects_a_too_long_transformer) {
  const Dataset data = tiny();
  auto built = build_interpolating_transformer(data, 1);
  BOOST_TEST(bound_violations(record_of(data, built.model)).empty());

  // Identity blocks keep the interpolation but push L past 2 sum(m) + 2N + 1.
  const std::size_t bound = 2 * data.sum_m() + 2 * data.pairs.size() + 1;
  Block<Rational> identity{SelfAttention<Rational>::identity(), FeedForward<Rational>{}, Phase::user};
  identity.ff.U.edit().resize(0, data.dimension);
  identity.ff.W.edit().resize(data.dimension, 0);
  while (built.model.blocks.size() <= bound) built.model.blocks.push_back(identity);
  const auto rec = record_of(data, built.model);
  BOOST_TEST(rec.verified_hardmax);  // still interpolates: only the constant is violated
  const auto v = bound_violations(rec);
  BOOST_REQUIRE(!v.empty());
  BOOST_TEST(v.front().find("tiny-d2.json: blocks: " + std::to_string(bound + 1) + " exceeds the Thm 1.6 bound") == 0);
}

BOOST_AUTO_TEST_CASE(gate_rejects_width_params_loosened_bounds_and_unverified) {
  const Dataset data = tiny();
  const auto built = build_interpolating_transformer(data, 1);
  auto rec = record_of(data, built.model);
  rec.width = 5;
  rec.blocks_bound_hardmax += 10;  // a record cannot carry its own looser bound
  rec.params = (20 * rec.d + 22) * rec.sum_m + 1;
  rec.verified_softmax = false;
  const auto v = bound_violations(rec);
  auto has = [&](const std::string& s) {
    return std::any_of(v.begin(), v.end(), [&](const std::string& x) { return x.find(s) != std::string::npos; });
  };
  BOOST_TEST(has("width: 5 exceeds 4"));
  BOOST_TEST(has("blocks_bound_hardmax"));
  BOOST_TEST(has("params: "));
  BOOST_TEST(has("verified_softmax"));
}

BOOST_AUTO_TEST_CASE(golden_differences_name_dataset_and_field) {
  const Dataset data = tiny();
  const auto built = build_interpolating_transformer(data, 1);
  const auto golden = record_of(data, built.model);
  auto now = golden;
  BOOST_TEST(golden_differences(golden, now).empty());
  now.params += 1;
  const auto d = golden_differences(golden, now);
  BOOST_REQUIRE_EQUAL(d.size(), 1u);
  BOOST_TEST(d.front() == "tiny-d2.json: params: golden " + std::to_string(golden.params) + " -> now " +
                              std::to_string(now.params));
  BOOST_TEST(regression_record_from_json(to_json(golden)).params == golden.params);
}

// The tool on a one-file corpus (tiny-d2) and its golden entry with one field changed: exit 1,
// the field named. (The whole corpus is the regression_gate test's job.)
BOOST_AUTO_TEST_CASE(gate_tool_fails_on_a_tampered_golden_file) {
  namespace fs = std::filesystem;
  const std::string root = SEQI_SOURCE_ROOT;
  const auto all = nlohmann::json::parse(slurp(root + "/tests/regression/golden.json"));
  nlohmann::json golden = nlohmann::json::array();
  for (const auto& entry : all)
    if (entry["dataset"] == "tiny-d2.json") golden.push_back(entry);
  BOOST_TEST_REQUIRE(golden.size() == 1u);
  const auto dir = fs::temp_directory_path() / "seqi-gate-test";
  fs::create_directories(dir);
  const nlohmann::json corpus = {{"files", {root + "/datasets/tiny-d2.json"}}, {"random", nlohmann::json::array()}};
  std::ofstream(dir / "corpus.json") << corpus.dump();
  const std::string cmd = std::string(SEQI_REGRESSION_EXE) + " --corpus " + (dir / "corpus.json").string() +
                          " --golden " + (dir / "golden.json").string() + " > " + (dir / "out.txt").string() +
                          " 2> " + (dir / "err.txt").string();
  std::ofstream(dir / "golden.json") << golden.dump();
  BOOST_TEST(WEXITSTATUS(std::system(cmd.c_str())) == 0);  // untampered: passes
  golden[0]["blocks"] = golden[0]["blocks"].get<std::size_t>() + 1;
  std::ofstream(dir / "golden.json") << golden.dump();
  BOOST_TEST(WEXITSTATUS(std::system(cmd.c_str())) == 1);
  BOOST_TEST(slurp((dir / "err.txt").string()).find("tiny-d2.json: blocks: golden") != std::string::npos);
}

BOOST_AUTO_TEST_SUITE_END()
