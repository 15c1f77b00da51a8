// Hostile inputs and invocations, each class with its exit code and a message
// fragment: no false "verified", atomic checked outputs that never overwrite an input,
// importer options. verify runs as a subprocess. The kill test prints its seed
// (SEQI_SEED=<seed> replays it). Quoted values, memory and hangs: test_hardening.cpp.
#include <boost/test/unit_test.hpp>

#include "scratch_files.hpp"

#include <fcntl.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <iterator>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>

#include "seqi/io/quote_value.hpp"
#include "seqi/numbers/rational.hpp"
#include "seqi/io/sha256.hpp"
#include "hardening_support.hpp"
#include "build_paths.hpp"

BOOST_AUTO_TEST_SUITE(test_hardening_files)

using namespace seqi;
namespace fs = std::filesystem;
using json = nlohmann::json;
using namespace seqi_test::hardening;

namespace {

std::uint64_t test_seed() {
  if (const char* s = std::getenv("SEQI_SEED")) return std::stoull(s);
  return static_cast<std::uint64_t>(std::chrono::steady_clock::now().time_since_epoch().count());
}

}  // namespace

// ---- 5. no false "verified" ------------------------------------------------------------

BOOST_AUTO_TEST_CASE(empty_file_names_are_usage_errors) {
  const std::string data = dataset("tiny-d2.json");
  expect(verify({"--model", "", data}), 2, "--model was given an empty file name");
  expect(verify({"--save-model", "", data}), 2, "--save-model was given an empty file name");
  expect(verify({"--report", "", data}), 2, "--report was given an empty file name");
  expect(verify({""}), 2, "dataset was given an empty file name");
}

BOOST_AUTO_TEST_CASE(bytes_after_the_json_value_are_refused) {
  const std::string data = read_file(dataset("tiny-d2.json"));
  const fs::path p = scratch_file("nul-then-garbage.json");
  write_file(p, data + std::string("\0garbage", 8));
  expect(verify({p.string()}), 2, "is a NUL character");
  const fs::path q = scratch_file("then-garbage.json");
  write_file(q, data + "{}");
  expect(verify({q.string()}), 2, "malformed JSON");
  const std::string model = read_file(saved_model("tiny-d2.json"));
  const fs::path m = scratch_file("model-nul.json");
  write_file(m, model + std::string("\0{", 2));
  expect(verify({"--model", m.string(), dataset("tiny-d2.json")}), 2, "is a NUL character");
  const fs::path m2 = scratch_file("model-garbage.json");
  write_file(m2, model + "]");
  expect(verify({"--model", m2.string(), dataset("tiny-d2.json")}), 2, "malformed JSON");
}

BOOST_AUTO_TEST_CASE(options_that_do_not_apply_are_refused) {
  const std::string data = dataset("tiny-d2.json");
  const std::string m = saved_model("tiny-d2.json").string();
  expect(verify({"--exact", "--precision", "64", data}), 2, "--precision needs --softmax");
  expect(verify({"--precision", "64", data}), 2, "--precision needs --softmax");
  expect(verify({"--exact", "--tau", "1/10", data}), 2, "--tau needs --softmax");
  expect(verify({"--model", m, "--seed", "3", data}), 2, "--seed chooses the construction");
  expect(verify({"--model", m, "--float-statements", "none", data}), 2, "--float-statements applies to a transformer");
  expect(verify({"--model", m, "--brute", data}), 2, "--brute applies to the construction");
  expect(verify({"--model", m, "--leader-construction", data}), 2, "--leader-construction chooses how");
  expect(verify({"--model", m, "--mean-collapse", data}), 2, "--mean-collapse chooses how");
  expect(verify({"--mean-collapse", "--leader-construction", data}), 2, "exclude each other");
  expect(verify({"--model", m, "--save-model", scratch_file("x.json").string(), data}), 2, "with --model nothing is built");
  expect(verify({"--pdf", data}), 2, "--pdf needs --report");
}

BOOST_AUTO_TEST_CASE(model_files_without_format_or_version_or_with_duplicate_keys_are_refused) {
  const std::string text = read_file(saved_model("tiny-d2.json"));
  const json model = json::parse(text);
  for (const char* key : {"format", "version"}) {
    json j = model;
    j.erase(key);
    const fs::path p = scratch_file(std::string("no-") + key + ".json");
    write_file(p, j.dump());
    expect(verify({"--model", p.string(), dataset("tiny-d2.json")}), 2, std::string("missing key \"") + key + "\"");
  }
  const fs::path p = scratch_file("duplicate-key.json");
  write_file(p, "{\"dimension\": 3, " + text.substr(text.find('{') + 1));
  expect(verify({"--model", p.string(), dataset("tiny-d2.json")}), 2, "the key \"dimension\" appears twice");
  json other = model;
  other["format"] = "something-else";
  const fs::path q = scratch_file("other-format.json");
  write_file(q, other.dump());
  expect(verify({"--model", q.string(), dataset("tiny-d2.json")}), 2, "expected \"seqi-transformer\", got \"something-else\"");
}

BOOST_AUTO_TEST_CASE(leading_zeros_in_a_coordinate_exponent_are_accepted) {
  const fs::path p = scratch_file("exponent-zeros.json");
  write_file(p, one_pair_dataset(R"([["0", "0"], ["1e000001", 2e0001]])"));
  const Run r = verify({"--json", p.string()});
  BOOST_TEST(r.code == 0, describe(r));
}

// ---- 6. files: checked before work, atomic, checked writes, never onto an input --------

BOOST_AUTO_TEST_CASE(a_usage_error_leaves_the_save_model_target_untouched) {
  const fs::path m = scratch_file("keep.json");
  const std::string data = dataset("tiny-d2.json");
  for (const auto& args : std::vector<std::vector<std::string>>{
           {"--precision", "64", "--save-model", m.string(), data},
           {"--softmax", "--tau", "abc", "--save-model", m.string(), data},
           {"--report", scratch_file("bad name.tex").string(), "--save-model", m.string(), data},
           {"--save-model", m.string(), scratch_file("missing.json").string()}}) {
    write_file(m, "OLD");
    const Run r = verify(args);
    BOOST_TEST(r.code == 2, describe(r));
    BOOST_TEST(read_file(m) == "OLD");
  }
}

BOOST_AUTO_TEST_CASE(write_errors_give_an_error_exit) {
  if (!fs::exists("/dev/full")) return;
  const std::string data = dataset("tiny-d2.json");
  expect(verify({"--save-model", "/dev/full", data}), 2, "/dev/full: error while");
  const Run r = verify({"--json", data}, writing_stdout("/dev/full"));
  BOOST_TEST(r.code == 2, describe(r));
  BOOST_TEST(r.err.find("standard output") != std::string::npos, r.err);
}

BOOST_AUTO_TEST_CASE(an_output_onto_an_input_is_refused) {
  const fs::path d = scratch_file("input.json");
  fs::copy_file(dataset("tiny-d2.json"), d, fs::copy_options::overwrite_existing);
  const std::string original = read_file(d);
  expect(verify({"--save-model", d.string(), d.string()}), 2, "writing it would destroy an input");
  const fs::path link = scratch_file("hard-link.json");
  fs::create_hard_link(d, link);
  expect(verify({"--save-model", link.string(), d.string()}), 2, "writing it would destroy an input");
  const fs::path cd = scratch_file("cert-data.tex");  // a dataset that happens to be named like the companion
  fs::copy_file(d, cd);
  expect(verify({"--report", scratch_file("cert.tex").string(), cd.string()}), 2, "the certificate's data file");
  BOOST_TEST(read_file(cd) == original);
  const std::string m = saved_model("tiny-d2.json").string();
  expect(verify({"--model", m, "--report", scratch_file("r.tex").string(), d.string()}), 0, "");
  BOOST_TEST(read_file(d) == original);
}

// kill -9 at random moments of a --save-model run: the target is the old file or the new one.
BOOST_AUTO_TEST_CASE(killed_save_model_leaves_the_old_or_the_complete_new_file) {
  const std::uint64_t seed = test_seed();
  std::cout << "kill test seed " << seed << " (SEQI_SEED=" << seed << " replays it)" << std::endl;
  std::mt19937_64 rng(seed);
  const std::string data = dataset("words-300.json");
  const fs::path reference = scratch_file("reference-model.json");
  const auto t0 = std::chrono::steady_clock::now();
  BOOST_REQUIRE(verify({"--save-model", reference.string(), data}).code == 0);
  const auto full = std::chrono::steady_clock::now() - t0;
  const std::string complete = read_file(reference);
  const fs::path target = scratch_file("killed-model.json");
  const std::string old = "{\"old\": true}\n";
  int saw_old = 0, saw_new = 0;
  for (int k = 0; k < 8; ++k) {
    write_file(target, old);
    const auto delay = std::chrono::microseconds(std::uniform_int_distribution<long>(
        0, std::chrono::duration_cast<std::chrono::microseconds>(full).count() * 5 / 4)(rng));
    const pid_t pid = ::fork();
    BOOST_REQUIRE(pid >= 0);
    if (pid == 0) {
      const int null = ::open("/dev/null", O_RDWR);
      ::dup2(null, 1), ::dup2(null, 2);
      ::execl(SEQI_VERIFY_EXE, SEQI_VERIFY_EXE, "--save-model", target.c_str(), data.c_str(), nullptr);
      ::_exit(127);
    }
    std::this_thread::sleep_for(delay);
    ::kill(pid, SIGKILL);
    int status = 0;
    ::waitpid(pid, &status, 0);
    const std::string now = read_file(target);
    BOOST_TEST((now == old || now == complete), "run " << k << " (seed " << seed << ", delay " << delay.count()
                                                       << " us): the target is neither the old nor the complete new file ("
                                                       << now.size() << " bytes)");
    (now == old ? saw_old : saw_new) += 1;
  }
  BOOST_TEST_MESSAGE("old file kept " << saw_old << " times, new file complete " << saw_new << " times");
}

// ---- 7. importer options ---------------------------------------------------------------

BOOST_AUTO_TEST_CASE(negative_importer_integers_are_refused_as_typed) {
  const std::string out = scratch_file("imported.json").string();
  const std::vector<std::pair<std::vector<std::string>, std::string>> cases = {
      {{"import", "fashion-mnist", "--patch", "-7", "--count", "3", "--task", "classify", "-o", out}, "--patch \"-7\""},
      {{"import", "fashion-mnist", "--patch", "7", "--count", "3", "--task", "classify", "--seed", "-1", "-o", out},
       "--seed \"-1\""},
      {{"import", "fashion-mnist", "--patch", "7", "--count", "-3", "--task", "classify", "-o", out}, "--count \"-3\""},
      {{"import", "fashion-mnist", "--patch", "7", "--count", "3", "--task", "inpaint", "--mask", "-2", "-o", out},
       "--mask \"-2\""},
      {{"import", "fashion-mnist", "--patch", "7", "--count", "3", "--task", "inpaint", "--mask", "2", "--labels",
        "L.gz", "-o", out},
       "--labels applies to --task classify only"},
  };
  for (const auto& [args, fragment] : cases) {
    BOOST_TEST_CONTEXT(fragment) {
      const Run r = verify(args);
      BOOST_TEST(r.code == 2, describe(r));
      BOOST_TEST(r.err.find(fragment) != std::string::npos, describe(r));
      BOOST_TEST(!fs::exists(out));
    }
  }
}

BOOST_AUTO_TEST_CASE(import_output_onto_an_input_or_full_device_is_refused) {
  const fs::path x = scratch_file("X.npy");
  write_file(x, "not really npy");
  const Run r = verify({"import", "npy", "--inputs", x.string(), "--outputs", scratch_file("Y.npy").string(), "-o", x.string()});
  expect(r, 2, "writing it would destroy an input");
  BOOST_TEST(read_file(x) == "not really npy");
}

BOOST_AUTO_TEST_SUITE_END()
