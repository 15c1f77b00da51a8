// Helpers shared by the verify command suites (test_cli, test_cli_inputs): verify run as a
// subprocess with its exit code, stdout and stderr captured, a scratch directory removed at exit,
// and exact reading of the rational fields of the --json summary.
#pragma once
#include <boost/test/unit_test.hpp>

#include "scratch_files.hpp"

#include <sys/wait.h>

#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "seqi/numbers/rational.hpp"
#include "build_paths.hpp"

namespace seqi_test::cli {

using namespace seqi;
namespace fs = std::filesystem;
using json = nlohmann::json;

struct Run {
  int code = -1;
  std::string out, err;
};

using seqi::testing::read_file;
using seqi::testing::write_file;

inline std::string shell_quote(const std::string& s) {
  std::string q = "'";
  for (char c : s) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return q + "'";
}

inline const fs::path& scratch() { return seqi::testing::scratch("seqi-cli"); }

inline fs::path scratch_file(const std::string& name) { return scratch() / name; }

// Runs verify with the given arguments; stdout and stderr go to files, read back.
inline Run verify(const std::vector<std::string>& args) {
  static int counter = 0;
  const int k = counter++;
  const fs::path out = scratch() / ("run" + std::to_string(k) + ".out"), err = scratch() / ("run" + std::to_string(k) + ".err");
  std::string cmd = shell_quote(SEQI_VERIFY_EXE);
  for (const auto& a : args) cmd += " " + shell_quote(a);
  cmd += " >" + shell_quote(out.string()) + " 2>" + shell_quote(err.string()) + " </dev/null";
  const int status = std::system(cmd.c_str());
  Run r;
  BOOST_REQUIRE_MESSAGE(status != -1 && WIFEXITED(status), "verify did not exit normally: " << cmd);
  r.code = WEXITSTATUS(status);
  r.out = read_file(out);
  r.err = read_file(err);
  return r;
}

inline std::string describe(const Run& r) { return "exit " + std::to_string(r.code) + "\nstdout:\n" + r.out + "\nstderr:\n" + r.err; }


inline std::string dataset(const std::string& name) { return (fs::path(SEQI_DATASETS_DIR) / name).string(); }

inline json parse_json_output(const Run& r) {
  json j;
  try {
    j = json::parse(r.out);  // the whole stdout must be one JSON value
  } catch (const std::exception& e) {
    BOOST_FAIL("stdout is not one JSON object: " << e.what() << "\n" << describe(r));
  }
  BOOST_REQUIRE_MESSAGE(j.is_object(), "stdout is JSON but not an object");
  return j;
}

inline Rational rational_field(const json& j, const char* key) {
  BOOST_REQUIRE_MESSAGE(j.contains(key), "missing field " << key);
  BOOST_REQUIRE_MESSAGE(j[key].is_string(), key << " is not a string: " << j[key].dump());
  std::string why;
  auto r = parse_rational(j[key].get<std::string>(), &why);
  BOOST_REQUIRE_MESSAGE(r.has_value(), key << " = " << j[key] << " is not a rational: " << why);
  BOOST_TEST(to_string(*r) == j[key].get<std::string>(), key << " is written in lowest terms");
  return *r;
}

}  // namespace seqi_test::cli
