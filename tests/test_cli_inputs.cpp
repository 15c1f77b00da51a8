// End-to-end tests of the verify command, run as a subprocess: bad input, usage errors, model
// files, each with its exit code and message. The --json summary and seeds are in test_cli.cpp;
// the shared helpers in cli_support.hpp.
#include <boost/test/unit_test.hpp>

#include "scratch_files.hpp"

#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "seqi/numbers/rational.hpp"
#include "seqi/io/dataset_json.hpp"
#include "distinct_targets.hpp"
#include "cli_support.hpp"
#include "build_paths.hpp"

BOOST_AUTO_TEST_SUITE(test_cli_inputs)

using namespace seqi;
namespace fs = std::filesystem;
using json = nlohmann::json;
using namespace seqi_test::cli;

namespace {

// Splits a TSV line on tabs.
std::vector<std::string> split_tabs(const std::string& line) {
  std::vector<std::string> v;
  std::stringstream ss(line);
  std::string f;
  while (std::getline(ss, f, '\t')) v.push_back(f);
  return v;
}

// A model file built and saved by verify itself.
fs::path saved_model(const std::string& dataset_name) {
  const fs::path m = scratch_file("model-" + fs::path(dataset_name).stem().string() + ".json");
  if (!fs::exists(m)) {
    const Run r = verify({"--save-model", m.string(), dataset(dataset_name)});
    BOOST_REQUIRE_MESSAGE(r.code == 0, describe(r));
    BOOST_REQUIRE(fs::exists(m));
  }
  return m;
}

}  // namespace

// ---- bad input and usage ---------------------------------------------------------------

BOOST_AUTO_TEST_CASE(bad_input_files_exit_with_the_listed_code_and_message) {
  const fs::path dir = fs::path(SEQI_TESTS_DIR) / "bad-input";
  std::ifstream tsv(dir / "expected.tsv");
  BOOST_REQUIRE(tsv.good());
  std::string line;
  std::getline(tsv, line);
  BOOST_TEST(line == "file\texit_code\tmessage_fragment");
  std::size_t rows = 0;
  while (std::getline(tsv, line)) {
    if (line.empty()) continue;
    const auto f = split_tabs(line);
    BOOST_REQUIRE_MESSAGE(f.size() == 3u, "bad row in expected.tsv: " << line);
    ++rows;
    BOOST_TEST_CONTEXT(f[0]) {
      const std::string path = (dir / f[0]).string();
      BOOST_REQUIRE(fs::exists(path));
      const Run r = verify({"--exact", path});
      BOOST_TEST(r.code == std::stoi(f[1]), describe(r));
      BOOST_TEST(r.err.find(f[2]) != std::string::npos, "stderr lacks \"" << f[2] << "\": " << r.err);
      BOOST_TEST(r.err.find(path) != std::string::npos, "stderr names the file: " << r.err);
      BOOST_TEST(r.out.empty(), r.out);
    }
  }
  BOOST_TEST(rows >= 10u);
}

BOOST_AUTO_TEST_CASE(usage_errors_exit_2) {
  const std::string ok = dataset("tiny-d2.json");
  struct Case {
    std::vector<std::string> args;
    std::string fragment;  // expected in stderr ("" = anything non-empty)
  };
  const std::string missing = (scratch() / "no-such-dataset.json").string();
  const std::vector<Case> cases = {
      {{}, "dataset"},
      {{"--no-such-option", ok}, "--no-such-option"},
      {{"--tau", "1/10", ok}, "--tau needs --softmax"},
      {{"--softmax", "--tau", "0", ok}, "positive"},
      {{"--softmax", "--tau", "-1/2", ok}, "positive"},
      {{"--softmax", "--tau", "abc", ok}, "abc"},
      {{"--softmax", "--tau", "1/0", ok}, "1/0"},
      {{"--exact", "--softmax", ok}, "excludes"},
      {{missing}, missing},
      {{"--pdf", ok}, "--pdf needs --report"},
      {{"--softmax", "--precision", "3", ok}, "--precision 3"},
      {{"--seed", "abc", ok}, "--seed"},
      {{ok, ok}, ""},
  };
  for (const auto& c : cases) {
    std::string shown;
    for (const auto& a : c.args) shown += " " + a;
    BOOST_TEST_CONTEXT("verify" << shown) {
      const Run r = verify(c.args);
      BOOST_TEST(r.code == 2, describe(r));
      BOOST_TEST(!r.err.empty());
      BOOST_TEST(r.err.find(c.fragment) != std::string::npos, "stderr lacks \"" << c.fragment << "\": " << r.err);
    }
  }
}

// ---- model files -----------------------------------------------------------------------

BOOST_AUTO_TEST_CASE(saved_model_verifies_in_hardmax_and_at_small_tau) {
  const std::string data = dataset("tiny-d2.json");
  const fs::path m = saved_model("tiny-d2.json");
  const json model = json::parse(read_file(m));
  BOOST_TEST(model.at("dimension") == 2);
  BOOST_TEST(model.at("blocks").is_array());

  const Run built = verify({"--json", data});
  const Run h = verify({"--json", "--model", m.string(), data});
  BOOST_TEST_REQUIRE(h.code == 0, describe(h));
  const json jh = parse_json_output(h);
  BOOST_TEST(jh["verified"].get<bool>());
  BOOST_TEST(jh["model"] == m.string());
  BOOST_TEST(jh["seed"].is_null());  // a user's model has no generic choices
  const json jb = parse_json_output(built);
  for (const char* k : {"blocks", "width", "params", "param_norm_sq"}) BOOST_TEST(jh[k] == jb[k], k);
  BOOST_TEST(jh["blocks"].get<std::size_t>() == model["blocks"].size());

  const Run s = verify({"--softmax", "--tau", "1/1000", "--json", "--model", m.string(), data});
  BOOST_TEST_REQUIRE(s.code == 0, describe(s));
  const json js = parse_json_output(s);
  BOOST_TEST(js["setting"] == "softmax");
  BOOST_TEST(js["verified"].get<bool>());
  BOOST_TEST(rational_field(js, "tau_checked") == Rational(1, 1000));
  BOOST_TEST(js["tau_star_lower"].is_null());

  // same model, saved with --softmax: identical file (the model does not depend on the setting)
  const fs::path m2 = scratch_file("model-softmax.json");
  const Run s2 = verify({"--softmax", "--save-model", m2.string(), data});
  BOOST_TEST(s2.code == 0);
  BOOST_TEST(read_file(m2) == read_file(m));
}

BOOST_AUTO_TEST_CASE(softmax_model_without_tau_exits_2) {
  const fs::path m = saved_model("tiny-d2.json");
  const Run r = verify({"--softmax", "--model", m.string(), dataset("tiny-d2.json")});
  BOOST_TEST(r.code == 2, describe(r));
  BOOST_TEST(r.err.find("--tau") != std::string::npos, r.err);
}

BOOST_AUTO_TEST_CASE(model_of_another_dimension_exits_2) {
  const fs::path m3 = saved_model("mixed-d3.json");  // d = 3
  const Run r = verify({"--model", m3.string(), dataset("tiny-d2.json")});
  BOOST_TEST(r.code == 2, describe(r));
  BOOST_TEST(r.err.find(m3.string()) != std::string::npos, r.err);
  BOOST_TEST(r.err.find("dimension") != std::string::npos, r.err);
}

BOOST_AUTO_TEST_CASE(perturbed_model_is_not_verified) {
  const fs::path m = saved_model("tiny-d2.json");
  const json model = json::parse(read_file(m));
  for (const char* delta : {"1", "1/1000000000000000000000000000000"}) {
    BOOST_TEST_CONTEXT("W[1][1] of the last block + " << delta) {
      json bad = model;
      auto& w = bad.at("blocks").back().at("feed_forward").at("W").at(0).at(0);
      const Rational changed = *parse_rational(w.get<std::string>()) + *parse_rational(delta);
      w = to_string(changed);
      const fs::path p = scratch_file("perturbed.json");
      write_file(p, bad.dump(1));
      const Run r = verify({"--model", p.string(), dataset("tiny-d2.json")});
      BOOST_TEST(r.code == 1, describe(r));
      BOOST_TEST(r.out.find("NOT VERIFIED") != std::string::npos);
      const Run rj = verify({"--json", "--model", p.string(), dataset("tiny-d2.json")});
      BOOST_TEST(rj.code == 1);
      const json j = parse_json_output(rj);
      BOOST_TEST(!j["verified"].get<bool>());
      bool some_sequence_differs = false;
      for (const auto& q : j["sequences"]) some_sequence_differs |= !q["matches"].get<bool>();
      BOOST_TEST(some_sequence_differs);
    }
  }
  // an empty model is the identity map: not an interpolation of tiny-d2
  json empty = model;
  empty["blocks"] = json::array();
  const fs::path p = scratch_file("empty-model.json");
  write_file(p, empty.dump());
  const Run r = verify({"--model", p.string(), dataset("tiny-d2.json")});
  BOOST_TEST(r.code == 1, describe(r));
}

BOOST_AUTO_TEST_CASE(malformed_model_files_exit_2_naming_the_file) {
  const fs::path m = saved_model("tiny-d2.json");
  const std::string text = read_file(m);
  const json model = json::parse(text);
  struct Case {
    std::string name, content, fragment;
  };
  std::vector<Case> cases;
  cases.push_back({"truncated.json", text.substr(0, text.size() / 2), "malformed JSON"});
  cases.push_back({"empty.json", "", "malformed JSON"});
  cases.push_back({"array.json", "[]", "expected an object"});
  {
    json j = model;
    j.erase("blocks");
    cases.push_back({"no-blocks.json", j.dump(), "missing key \"blocks\""});
  }
  {
    json j = model;
    j.erase("dimension");
    cases.push_back({"no-dimension.json", j.dump(), "dimension"});
  }
  {
    json j = model;
    j["blocks"][0]["feed_forward"]["eta"] = "half";
    cases.push_back({"non-rational.json", j.dump(), "\"half\" is not an exact rational"});
  }
  {
    json j = model;
    j["blocks"][0]["feed_forward"]["eta"] = "1/0";
    cases.push_back({"zero-denominator.json", j.dump(), "block 1 feed_forward.eta"});
  }
  {
    json j = model;
    j["blocks"][0]["feed_forward"]["W"].erase(0);
    cases.push_back({"short-W.json", j.dump(), "block 1 feed_forward.W"});
  }
  {
    json j = model;
    j["blocks"][1]["attention"].erase("rho");
    cases.push_back({"no-rho.json", j.dump(), "block 2"});
  }
  {
    json j = model;
    j["blocks"][0]["feed_forward"]["U"][0].push_back("1");
    cases.push_back({"long-U-row.json", j.dump(), "block 1 feed_forward.U row 1"});
  }
  for (const auto& c : cases) {
    BOOST_TEST_CONTEXT(c.name) {
      const fs::path p = scratch_file(c.name);
      write_file(p, c.content);
      const Run r = verify({"--model", p.string(), dataset("tiny-d2.json")});
      BOOST_TEST(r.code == 2, describe(r));
      BOOST_TEST(r.err.find(p.string()) != std::string::npos, "stderr names the file: " << r.err);
      BOOST_TEST(r.err.find(c.fragment) != std::string::npos, "stderr lacks \"" << c.fragment << "\": " << r.err);
      BOOST_TEST(r.out.empty());
    }
  }
  const std::string missing = scratch_file("no-such-model.json").string();
  const Run r = verify({"--model", missing, dataset("tiny-d2.json")});
  BOOST_TEST(r.code == 2, describe(r));
  BOOST_TEST(r.err.find(missing) != std::string::npos, r.err);
}

BOOST_AUTO_TEST_SUITE_END()
