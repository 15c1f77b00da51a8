// End-to-end tests of the verify command, run as a subprocess: exit codes, the --json summary
// (with exact comparisons of the rational fields), seeds. Bad input, usage errors and model
// files are in test_cli_inputs.cpp; the shared helpers in cli_support.hpp.
#include <boost/test/unit_test.hpp>

#include "seqi/cli/allocator.hpp"
#include "seqi/cli/run.hpp"
#include "seqi/numbers/rational.hpp"
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

BOOST_AUTO_TEST_SUITE(test_cli)

using namespace seqi;
namespace fs = std::filesystem;
using json = nlohmann::json;
using namespace seqi_test::cli;

namespace {

std::vector<fs::path> shipped_datasets() {
  std::vector<fs::path> v;
  for (const auto& e : fs::directory_iterator(SEQI_DATASETS_DIR))
    if (e.path().extension() == ".json") v.push_back(e.path());
  std::sort(v.begin(), v.end());
  BOOST_REQUIRE(v.size() >= 5u);
  return v;
}

std::string cli_data(const std::string& name) { return (fs::path(SEQI_TESTS_DIR) / "cli-data" / name).string(); }

std::size_t count_field(const json& j, const char* key) {
  BOOST_REQUIRE_MESSAGE(j.contains(key) && j[key].is_number_unsigned(), "field " << key << " is not a count");
  return j[key].get<std::size_t>();
}

// N, d and sum(m) computed from the dataset file itself, not from verify's output.
struct Shape {
  std::size_t N = 0, d = 0, sum_m = 0, distinct_targets = 0;
  std::optional<std::size_t> promised_runs;  // lem:grouped-places
};
Shape shape_of(const fs::path& p) {
  const json j = json::parse(read_file(p));
  Shape s;
  s.N = j.at("pairs").size();
  s.d = j.at("dimension").get<std::size_t>();
  for (const auto& pair : j.at("pairs")) s.sum_m += pair.at("output").size();
  const auto data = seqi::read_dataset_file(p.string());
  s.distinct_targets = distinct_targets(data);
  s.promised_runs = promised_runs(data);
  return s;
}

void expect_all_checks_passed(const json& j) {
  BOOST_REQUIRE(j.contains("checks") && j["checks"].is_array());
  BOOST_TEST(!j["checks"].empty());
  for (const auto& c : j["checks"])
    if (c.at("required").get<bool>()) BOOST_TEST(c.at("passed").get<bool>(), c.at("name") << ": " << c.at("detail"));
}

void expect_hardmax_summary(const json& j, const Shape& s) {
  BOOST_TEST(j.at("verified").get<bool>());
  BOOST_TEST(j.at("setting") == "hardmax");
  BOOST_TEST(count_field(j, "N") == s.N);
  BOOST_TEST(count_field(j, "d") == s.d);
  BOOST_TEST(count_field(j, "sum_m") == s.sum_m);
  const std::size_t blocks = count_field(j, "blocks"), bound = count_field(j, "blocks_bound");
  BOOST_TEST(bound == 2 * s.sum_m + 2 * s.N + 1);
  BOOST_TEST(blocks <= bound);
  BOOST_REQUIRE(j.contains("blocks_by_phase") && j["blocks_by_phase"].is_object());
  std::size_t phases = 0;
  for (const auto& [phase, n] : j["blocks_by_phase"].items()) {
    BOOST_TEST((phase == "separation" || phase == "placement" || phase == "interpolation"), phase);
    phases += n.get<std::size_t>();
  }
  BOOST_TEST(blocks == phases);
  // One flat hat per distinct target (lem:fewer-blocks-count): K + sum(m) + D, or at most 2 more.
  BOOST_TEST(count_field(j, "distinct_targets") == s.distinct_targets);
  if (j.at("blocks_bound_construction_formula") == "ceil((N + 1) / 4)") {  // lem:hinge-interpolation
    BOOST_TEST(s.sum_m == s.N);
    BOOST_TEST(count_field(j, "blocks_bound_construction") == (s.N + 4) / 4);
    BOOST_TEST(j["blocks_by_phase"].size() == 1u);
  } else if (j.at("blocks_bound_construction_formula") == "N + offset_block") {  // lem:mean-collapse
    BOOST_TEST(s.sum_m == s.N);
    const std::size_t bound = count_field(j, "blocks_bound_construction");
    BOOST_TEST((bound == s.N || bound == s.N + 1));
    BOOST_TEST(j["blocks_by_phase"].size() == 1u);
  } else {
    BOOST_TEST(count_field(j, "blocks_bound_construction") == count_field(j, "lifts") + s.sum_m + s.distinct_targets + 2);
    if (s.promised_runs) BOOST_TEST(blocks == count_field(j, "lifts") + s.sum_m + *s.promised_runs);
  }
  BOOST_TEST(blocks <= count_field(j, "blocks_bound_construction"));
  BOOST_TEST(count_field(j, "width") <= 4u);
  BOOST_TEST(count_field(j, "width") >= 1u);
  const std::size_t params = count_field(j, "params"), dense = count_field(j, "params_dense");
  BOOST_TEST(params > 0u);
  BOOST_TEST(params <= dense);
  BOOST_TEST(params <= count_field(j, "params_bound"));
  BOOST_TEST(rational_field(j, "param_norm_sq") > 0);
  BOOST_REQUIRE(j.contains("seed"));
  BOOST_TEST(j["seed"].is_number_unsigned());
  BOOST_REQUIRE(j.at("sequences").is_array());
  BOOST_TEST(j["sequences"].size() == s.N);
  for (const auto& q : j["sequences"]) BOOST_TEST(q.at("matches").get<bool>());
  expect_all_checks_passed(j);
}

void expect_softmax_summary(const json& j, const Shape& s) {
  BOOST_TEST(j.at("verified").get<bool>());
  BOOST_TEST(j.at("setting") == "softmax");
  BOOST_TEST(count_field(j, "N") == s.N);
  BOOST_TEST(count_field(j, "sum_m") == s.sum_m);
  BOOST_TEST(count_field(j, "blocks") <= 2 * s.sum_m + 3 * s.N);
  BOOST_TEST(count_field(j, "blocks_bound") == 2 * s.sum_m + 3 * s.N);
  BOOST_REQUIRE(j.contains("tau_star_lower") && j.contains("tau_star_unbounded"));
  const Rational tau_checked = rational_field(j, "tau_checked");
  BOOST_TEST(tau_checked > 0);
  if (j["tau_star_lower"].is_null()) {
    BOOST_TEST(j["tau_star_unbounded"].get<bool>());
    BOOST_TEST(tau_checked == Rational(1));  // the documented default when tau* is unbounded
  } else {
    BOOST_TEST(!j["tau_star_unbounded"].get<bool>());
    const Rational tau_star = rational_field(j, "tau_star_lower");
    BOOST_TEST(tau_star > 0);
    BOOST_TEST(tau_checked == tau_star / 2);
    // the certified bound is the minimum over the sequences, rounded down
    for (const auto& t : j.at("tau_per_sequence"))
      if (!t.is_null()) BOOST_TEST(tau_star <= *parse_rational(t.get<std::string>()));
  }
  BOOST_TEST(j.at("tau_per_sequence").size() == s.N);
  const Rational radius = rational_field(j, "max_enclosure_radius"), df = rational_field(j, "flat_halfwidth");
  BOOST_TEST(radius >= 0);
  BOOST_TEST(df > 0);
  BOOST_TEST(radius <= df);
  expect_all_checks_passed(j);
}

}  // namespace

// ---- every shipped dataset -------------------------------------------------------------

BOOST_AUTO_TEST_CASE(exact_every_dataset_verifies_with_the_theorem_counts) {
  for (const auto& p : shipped_datasets()) {
    BOOST_TEST_CONTEXT(p.filename().string()) {
      const Shape s = shape_of(p);
      const Run r = verify({"--exact", "--json", p.string()});
      BOOST_TEST_REQUIRE(r.code == 0, describe(r));
      BOOST_TEST(r.err.empty(), r.err);
      const json j = parse_json_output(r);
      expect_hardmax_summary(j, s);
      BOOST_TEST(j["seed"] == 1);  // the default seed
      // the default setting is --exact: same JSON
      const Run def = verify({"--json", p.string()});
      BOOST_TEST(def.code == 0);
      BOOST_TEST(def.out == r.out);
      // the human-readable summary says the same
      const Run text = verify({"--exact", p.string()});
      BOOST_TEST(text.code == 0);
      BOOST_TEST(text.out.find("VERIFIED") != std::string::npos);
      BOOST_TEST(text.out.find("NOT VERIFIED") == std::string::npos);
    }
  }
}

BOOST_AUTO_TEST_CASE(softmax_every_dataset_verifies_at_half_the_certified_tau) {
  for (const auto& p : shipped_datasets()) {
    BOOST_TEST_CONTEXT(p.filename().string()) {
      const Shape s = shape_of(p);
      const Run r = verify({"--softmax", "--json", p.string()});
      BOOST_TEST_REQUIRE(r.code == 0, describe(r));
      const json j = parse_json_output(r);
      expect_softmax_summary(j, s);
      // the certificate claims every 0 < tau <= tau_star_lower: check at the bound itself and far below
      if (!j["tau_star_lower"].is_null()) {
        const std::string tau_star = j["tau_star_lower"].get<std::string>();
        const Run at_bound = verify({"--softmax", "--json", "--tau", tau_star, p.string()});
        BOOST_TEST(at_bound.code == 0, "at tau = tau_star_lower " << tau_star << ": " << describe(at_bound));
        if (at_bound.code == 0) BOOST_TEST(parse_json_output(at_bound)["tau_checked"] == tau_star);
      }
      const Run small = verify({"--softmax", "--tau", "1/1000", p.string()});
      BOOST_TEST(small.code == 0, describe(small));
    }
  }
}

BOOST_AUTO_TEST_CASE(too_large_tau_is_not_verified_and_says_where) {
  const Run r = verify({"--softmax", "--tau", "1000", dataset("mixed-d3.json")});
  BOOST_TEST(r.code == 1, describe(r));
  BOOST_TEST(r.out.find("NOT VERIFIED") != std::string::npos);
  BOOST_TEST(r.out.find("sequence") != std::string::npos);
  BOOST_TEST(r.out.find("leaves the flat") != std::string::npos, r.out);

  const Run rj = verify({"--softmax", "--json", "--tau", "1000", dataset("mixed-d3.json")});
  BOOST_TEST(rj.code == 1);
  const json j = parse_json_output(rj);
  BOOST_TEST(!j.at("verified").get<bool>());
  BOOST_TEST(rational_field(j, "tau_checked") == Rational(1000));
  BOOST_TEST(rational_field(j, "tau_star_lower") < Rational(1000));
  BOOST_TEST(rational_field(j, "max_enclosure_radius") > rational_field(j, "flat_halfwidth"));
  bool failed = false;
  for (const auto& c : j["checks"]) failed |= c["required"].get<bool>() && !c["passed"].get<bool>();
  BOOST_TEST(failed);

  // one token per sequence everywhere: no sequence constrains tau, so even 1000 verifies
  const Run single = verify({"--softmax", "--tau", "1000", dataset("single.json")});
  BOOST_TEST(single.code == 0, describe(single));
}

BOOST_AUTO_TEST_CASE(brute_gives_the_same_result_as_default) {
  for (const auto& p : shipped_datasets()) {
    BOOST_TEST_CONTEXT(p.filename().string()) {
      const Run a = verify({"--json", p.string()}), b = verify({"--brute", "--json", p.string()});
      BOOST_TEST_REQUIRE(a.code == 0);
      BOOST_TEST_REQUIRE(b.code == 0, describe(b));
      const json ja = parse_json_output(a), jb = parse_json_output(b);
      BOOST_TEST(jb["verified"] == ja["verified"]);
      for (const char* k : {"blocks", "width", "params", "param_norm_sq", "sequences", "lifts"})
        BOOST_TEST(jb[k] == ja[k], k);
      expect_hardmax_summary(jb, shape_of(p));
    }
  }
  // Lemma P's margins are certified lower bounds by default and exact gaps under --brute, so the
  // bound on tau* is at least as large under --brute.
  for (const char* name : {"equal-means.json", "mixed-d3.json"}) {
    const Run a = verify({"--softmax", "--json", dataset(name)}), b = verify({"--softmax", "--brute", "--json", dataset(name)});
    BOOST_TEST(a.code == 0);
    BOOST_TEST(b.code == 0, describe(b));
    const auto bound = [](const Run& r) { return Rational(parse_json_output(r)["tau_star_lower"].get<std::string>()); };
    BOOST_TEST((bound(b) >= bound(a)), name);
  }
}

BOOST_AUTO_TEST_CASE(huge_and_tiny_coordinates_through_the_cli) {
  const std::string f = cli_data("huge-tiny.json");
  const Shape s = shape_of(f);
  const Run h = verify({"--json", f});
  BOOST_TEST_REQUIRE(h.code == 0, describe(h));
  expect_hardmax_summary(parse_json_output(h), s);
  const Run so = verify({"--softmax", "--json", f});
  BOOST_TEST_REQUIRE(so.code == 0, describe(so));
  expect_softmax_summary(parse_json_output(so), s);
}

// ---- seeds -----------------------------------------------------------------------------

BOOST_AUTO_TEST_CASE(seed_is_reported_and_runs_are_deterministic) {
  const std::string data = dataset("equal-means.json");
  const Run a = verify({"--seed", "7", "--json", data}), b = verify({"--seed", "7", "--json", data});
  BOOST_TEST_REQUIRE(a.code == 0, describe(a));
  BOOST_TEST(b.code == 0);
  const json ja = parse_json_output(a);
  BOOST_TEST(ja["seed"] == 7);
  BOOST_TEST(a.out == b.out);  // byte-identical
  expect_hardmax_summary(ja, shape_of(data));

  const Run sa = verify({"--softmax", "--seed", "7", "--json", data}), sb = verify({"--softmax", "--seed", "7", "--json", data});
  BOOST_TEST(sa.code == 0);
  BOOST_TEST(parse_json_output(sa)["seed"] == 7);
  BOOST_TEST(sa.out == sb.out);

  // another seed is reported as such and still verifies
  const Run c = verify({"--seed", "123456789", "--json", data});
  BOOST_TEST(c.code == 0);
  BOOST_TEST(parse_json_output(c)["seed"] == 123456789u);

  // saved models are a function of the seed
  const fs::path m1 = scratch_file("seed7-a.json"), m2 = scratch_file("seed7-b.json");
  BOOST_TEST(verify({"--seed", "7", "--save-model", m1.string(), data}).code == 0);
  BOOST_TEST(verify({"--seed", "7", "--save-model", m2.string(), data}).code == 0);
  BOOST_TEST(read_file(m1) == read_file(m2));
}

// ---- float statements asked for ----------------------------------------------------------

// A statement left out (--float-statements) is recorded as not stated, with no check, and leaves
// the other statement and the exact verdict as they are, in both settings.
BOOST_AUTO_TEST_CASE(float_statements_left_out_are_not_stated_and_change_nothing_else) {
  const std::string data = dataset("equal-means.json");
  for (const std::string setting : {"--exact", "--softmax"}) {
    BOOST_TEST_CONTEXT(setting) {
      const Run both = verify({setting, "--json", data}), one = verify({setting, "--float-statements", "float64", "--json", data});
      const Run none = verify({setting, "--float-statements", "none", "--json", data});
      BOOST_TEST_REQUIRE(both.code == 0, describe(both));
      BOOST_TEST_REQUIRE(one.code == 0, describe(one));
      BOOST_TEST_REQUIRE(none.code == 0, describe(none));
      const json jb = parse_json_output(both), j1 = parse_json_output(one), j0 = parse_json_output(none);
      BOOST_TEST(jb["float32_run_stated"] == true);
      BOOST_TEST(jb["float64_run_certified"] == true);
      for (const char* key : {"float64_run_stated", "float64_run_certified", "float64_run_delta", "float64_run_tokens_bounded"})
        BOOST_TEST(j1[key] == jb[key], key);
      BOOST_TEST(j1["float32_run_stated"] == false);
      BOOST_TEST(j1["float32_run_delta"].is_null());
      BOOST_TEST(j0["float64_run_stated"] == false);
      BOOST_TEST(j0["float32_run_stated"] == false);
      BOOST_TEST(j0["verified"] == jb["verified"]);
      BOOST_TEST(j0["param_norm_sq"] == jb["param_norm_sq"]);
      std::size_t float_checks = 0;
      for (const auto& c : j0["checks"]) float_checks += c["lemma"] == "lem:float-run";
      BOOST_TEST(float_checks == 0u);
      BOOST_TEST(jb["checks"].size() == j0["checks"].size() + 2);
    }
  }
  const Run text = verify({"--float-statements", "float32", data});
  BOOST_TEST(text.out.find("float64:   not stated: not asked for in this run") != std::string::npos, text.out);
  const Run bad = verify({"--float-statements", "float16", data});
  BOOST_TEST(bad.code == 2);
  BOOST_TEST(bad.err.find("expected float64,float32, float64, float32 or none") != std::string::npos, bad.err);
}

// Every spelling of --float-statements means one choice, in the option and in run_verify alike;
// a text the option would refuse is refused by run_verify too (exit 2), never read as a default.
BOOST_AUTO_TEST_CASE(float_statements_spellings_have_one_meaning) {
  const std::pair<const char*, std::pair<bool, bool>> spellings[] = {{"float64,float32", {true, true}},
                                                                     {"float32,float64", {true, true}},
                                                                     {"float64", {true, false}},
                                                                     {"float32", {false, true}},
                                                                     {"none", {false, false}}};
  for (const auto& [text, want] : spellings) {
    const auto got = seqi::parse_float_statements(text);
    BOOST_TEST_REQUIRE(got.has_value(), text);
    BOOST_TEST(got->float64 == want.first, text);
    BOOST_TEST(got->float32 == want.second, text);
  }
  for (const char* text : {"", "float16", "float64,", "Float64", "float64,float32,none"})
    BOOST_TEST(!seqi::parse_float_statements(text).has_value(), text);
  seqi::VerifyOptions opt;
  opt.dataset_path = dataset("equal-means.json");
  opt.float_statements = "float64 float32";
  std::ostringstream out, err;
  BOOST_TEST(seqi::run_verify(opt, out, err) == 2);
  BOOST_TEST(err.str().find("--float-statements \"float64 float32\": expected") != std::string::npos, err.str());
  BOOST_TEST(out.str().empty());
  opt.dataset_path = dataset("no-such-dataset.json");  // refused before the dataset is read
  std::ostringstream out2, err2;
  BOOST_TEST(seqi::run_verify(opt, out2, err2) == 2);
  BOOST_TEST(err2.str().find("--float-statements") != std::string::npos, err2.str());
}

// ---- odds and ends ---------------------------------------------------------------------

BOOST_AUTO_TEST_CASE(duplicate_pairs_are_merged_and_counted_once) {
  const std::string f = cli_data("duplicate-pairs.json");
  const Run r = verify({"--json", f});
  BOOST_TEST_REQUIRE(r.code == 0, describe(r));
  const json j = parse_json_output(r);
  Shape s;  // after merging pairs 1 and 2
  s.N = 2;
  s.d = 2;
  s.sum_m = 2;
  const auto merged = seqi::read_dataset_file(f);  // the reader merges the duplicate pair
  s.distinct_targets = distinct_targets(merged);
  s.promised_runs = promised_runs(merged);
  expect_hardmax_summary(j, s);
  BOOST_TEST(j["checks"][0]["detail"].get<std::string>().find("pair 2 repeats pair 1") != std::string::npos,
             j["checks"][0]["detail"]);
  const Run so = verify({"--softmax", "--json", f});
  BOOST_TEST_REQUIRE(so.code == 0, describe(so));
  expect_softmax_summary(parse_json_output(so), s);
}

BOOST_AUTO_TEST_CASE(help_and_version_exit_0) {
  const Run h = verify({"--help"});
  BOOST_TEST(h.code == 0);
  BOOST_TEST(h.out.find("Exit codes: 0 verified, 1 not verified, 2 bad input") != std::string::npos, h.out);
  const Run v = verify({"--version"});
  BOOST_TEST(v.code == 0);
  BOOST_TEST(v.out.find(SEQI_VERSION) != std::string::npos, v.out);
  BOOST_TEST(v.out.find("(malloc: " + malloc_implementation() + ")") != std::string::npos, v.out);
}

BOOST_AUTO_TEST_CASE(save_model_to_an_unwritable_path_exits_2) {
  const std::string p = (scratch() / "no-such-dir" / "m.json").string();
  const Run r = verify({"--save-model", p, dataset("single.json")});
  BOOST_TEST(r.code == 2, describe(r));
  BOOST_TEST(r.err.find(p) != std::string::npos, r.err);
}

// A seed outside 0..2^64-1 is a usage error, never silently wrapped or saturated.
BOOST_AUTO_TEST_CASE(out_of_range_seed_is_a_usage_error) {
  for (const char* seed : {"-1", "18446744073709551616"}) {
    BOOST_TEST_CONTEXT("--seed " << seed) {
      const Run r = verify({"--seed", seed, "--json", dataset("single.json")});
      BOOST_TEST(r.code == 2, describe(r));
    }
  }
  const Run max = verify({"--seed", "18446744073709551615", "--json", dataset("single.json")});
  BOOST_TEST(max.code == 0);
  BOOST_TEST(parse_json_output(max)["seed"] == 18446744073709551615ull);
}

BOOST_AUTO_TEST_SUITE_END()
