// The progress reporter (seqi/core/progress.hpp) and `verify --progress`: phases with
// done/total on stderr, nothing on stdout, and the summary (text and --json) unchanged.
#include <boost/test/unit_test.hpp>

#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <sstream>
#include <string>

#include "seqi/cli/run.hpp"
#include "seqi/core/progress.hpp"
#include "build_paths.hpp"

BOOST_AUTO_TEST_SUITE(test_progress)

using namespace seqi;
using namespace std::chrono_literals;

namespace {

struct Streams {
  int code = -1;
  std::string out, err;
};

Streams run(VerifyOptions opt) {
  std::ostringstream out, err;
  Streams s;
  s.code = run_verify(opt, out, err);
  s.out = out.str();
  s.err = err.str();
  return s;
}

std::size_t count_of(const std::string& text, const std::string& what) {
  std::size_t n = 0;
  for (auto k = text.find(what); k != std::string::npos; k = text.find(what, k + 1)) ++n;
  return n;
}

}  // namespace

BOOST_AUTO_TEST_CASE(reporter_counts_steps_and_ends_each_phase) {
  std::ostringstream err;
  {
    Progress p(err, false, 0ms, 1h);  // shown at each phase's start and end, never in between
    p.phase("alpha", 4);
    for (int k = 0; k < 4; ++k) p.advance();
    p.phase("beta", 0);
  }
  const std::string s = err.str();
  BOOST_TEST(count_of(s, "verify: alpha: 0/4 (0%)") == 1u, s);
  BOOST_TEST(count_of(s, "verify: alpha: 4/4 (100%)") == 1u, s);
  BOOST_TEST(count_of(s, "verify: alpha: 1/4") + count_of(s, "verify: alpha: 2/4") + count_of(s, "verify: alpha: 3/4") == 0u, s);
  BOOST_TEST(count_of(s, "verify: beta, ") == 2u, s);  // start and end of a phase of unknown length
  BOOST_TEST(count_of(s, "\r") == 0u, s);              // not a terminal: plain lines
  BOOST_TEST(count_of(s, "\n") == 4u, s);
}

BOOST_AUTO_TEST_CASE(reporter_is_silent_before_its_delay) {
  std::ostringstream err;
  {
    Progress p(err, true, 1h);
    p.phase("alpha", 3);
    p.advance(3);
  }
  BOOST_TEST(err.str().empty());
}

BOOST_AUTO_TEST_CASE(terminal_redraws_one_line_and_ends_it) {
  std::ostringstream err;
  {
    Progress p(err, true, 0ms, 1h);
    p.phase("alpha", 2);
    p.advance(2);
  }
  const std::string s = err.str();
  BOOST_TEST(count_of(s, "\r\033[K") == 2u, s);  // start, end
  BOOST_TEST(count_of(s, "\n") == 1u, s);
  BOOST_TEST(s.back() == '\n');
}

BOOST_AUTO_TEST_CASE(verify_progress_goes_to_stderr_only) {
  for (const char* name : {"shared-tokens.json", "mixed-d3.json", "subset.json"})
    for (bool softmax : {false, true})
      for (bool json : {false, true}) {
        VerifyOptions opt;
        opt.dataset_path = std::string(SEQI_DATASETS_DIR) + "/" + name;
        opt.softmax = softmax;
        opt.json = json;
        const Streams quiet = run(opt);
        opt.progress = true;
        opt.progress_delay_ms = 0;
        const Streams loud = run(opt);
        const std::string what = std::string(name) + (softmax ? " softmax" : " hardmax") + (json ? " json" : "");
        BOOST_TEST(quiet.code == 0, what << quiet.err);
        BOOST_TEST(loud.code == quiet.code, what);
        BOOST_TEST(loud.out == quiet.out, what);  // byte-identical summary
        BOOST_TEST(quiet.err.empty(), what << quiet.err);
        BOOST_TEST(count_of(loud.out, "verify: ") == 0u, what);
        BOOST_TEST(count_of(loud.err, "verify: building the transformer") >= 1u, what << loud.err);
        BOOST_TEST(count_of(loud.err, "verify: certifying: Lemma P (sequences): 0/") == 1u, what << loud.err);
        BOOST_TEST(count_of(loud.err, "(100%)") >= 2u, what << loud.err);
        if (softmax)
          BOOST_TEST(count_of(loud.err, "verify: certifying: softmax collapse enclosures (sequences)") >= 1u,
                     what << loud.err);
      }
}

BOOST_AUTO_TEST_CASE(verify_progress_flag_on_the_command_line) {
  const std::string data = std::string(SEQI_DATASETS_DIR) + "/shared-tokens.json";
  const std::string exe = SEQI_VERIFY_EXE;
  const auto dir = std::filesystem::temp_directory_path();
  const std::string tag = std::to_string(::getpid());
  const std::string out1 = (dir / ("seqi-progress-1-" + tag)).string(), out2 = (dir / ("seqi-progress-2-" + tag)).string();
  const std::string err2 = out2 + ".err";
  BOOST_REQUIRE(std::system((exe + " --json " + data + " >" + out1 + " 2>/dev/null").c_str()) == 0);
  BOOST_REQUIRE(std::system((exe + " --json --progress --progress-delay 0 " + data + " >" + out2 + " 2>" + err2).c_str()) == 0);
  auto slurp = [](const std::string& p) {
    std::ifstream in(p, std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  };
  BOOST_TEST(slurp(out1) == slurp(out2));
  BOOST_TEST(count_of(slurp(err2), "verify: certifying: Lemma P") >= 1u);
  for (const auto& p : {out1, out2, err2}) std::filesystem::remove(p);
}

BOOST_AUTO_TEST_SUITE_END()
