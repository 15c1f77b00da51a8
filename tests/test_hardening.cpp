#define BOOST_TEST_MODULE hardening
// Hostile inputs and invocations (issue 13), each class with its exit code and a message
// fragment: quoted values bounded and escaped, no recursion on deep input, out of memory,
// no hang on huge numbers or models, read-once inputs, no false "verified", atomic checked
// outputs that never overwrite an input, importer options. verify runs as a subprocess.
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

using namespace seqi;
namespace fs = std::filesystem;
using json = nlohmann::json;

namespace {

#if defined(__SANITIZE_ADDRESS__)
constexpr bool kSanitized = true;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
constexpr bool kSanitized = true;
#else
constexpr bool kSanitized = false;
#endif
#else
constexpr bool kSanitized = false;
#endif

using seqi::testing::read_file;
using seqi::testing::write_file;

const fs::path& scratch() { return seqi::testing::scratch("seqi-hardening"); }

fs::path scratch_file(const std::string& name) { return scratch() / name; }
std::string dataset(const std::string& name) { return (fs::path(SEQI_DATASETS_DIR) / name).string(); }

struct Run {
  int code = -1;     // exit status, or -1 when killed by a signal
  int signal = 0;
  std::string out, err;
};

std::string describe(const Run& r) {
  return "exit " + std::to_string(r.code) + " signal " + std::to_string(r.signal) + "\nstdout:\n" + r.out.substr(0, 2000) +
         "\nstderr:\n" + r.err.substr(0, 2000);
}

struct Launch {
  std::string stdin_path = "/dev/null";
  std::string stdout_path;  // "" = a scratch file read back
  rlim_t address_space = 0;  // 0 = no limit
  int timeout_s = 120;       // the run is killed after this (a hang is a failure, not a wait)
};

Launch memory_limited(rlim_t bytes) {
  Launch l;
  l.address_space = kSanitized ? 0 : bytes;  // ASan reserves terabytes of address space
  return l;
}
Launch timed_out_after(int seconds) {
  Launch l;
  l.timeout_s = seconds;
  return l;
}
Launch reading_stdin(const std::string& path) {
  Launch l;
  l.stdin_path = path;
  return l;
}
Launch writing_stdout(const std::string& path) {
  Launch l;
  l.stdout_path = path;
  return l;
}

// Runs argv[0] = exe with args; returns exit code, signal and the captured output.
Run run(const std::string& exe, const std::vector<std::string>& args, const Launch& how = {}) {
  static int counter = 0;
  const int k = counter++;
  const fs::path out = how.stdout_path.empty() ? scratch() / ("run" + std::to_string(k) + ".out") : fs::path(how.stdout_path);
  const fs::path err = scratch() / ("run" + std::to_string(k) + ".err");
  std::vector<char*> argv{const_cast<char*>(exe.c_str())};
  for (const auto& a : args) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  const pid_t pid = ::fork();
  BOOST_REQUIRE(pid >= 0);
  if (pid == 0) {
    const int in = ::open(how.stdin_path.c_str(), O_RDONLY);
    const int o = ::open(out.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    const int e = ::open(err.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (in < 0 || o < 0 || e < 0) ::_exit(125);
    ::dup2(in, 0), ::dup2(o, 1), ::dup2(e, 2);
    if (how.address_space) {
      const rlimit lim{how.address_space, how.address_space};
      ::setrlimit(RLIMIT_AS, &lim);
    }
    ::alarm(static_cast<unsigned>(how.timeout_s));  // SIGALRM ends a hang
    ::execv(exe.c_str(), argv.data());
    ::_exit(127);
  }
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0) BOOST_REQUIRE(errno == EINTR);
  Run r;
  if (WIFEXITED(status)) r.code = WEXITSTATUS(status);
  if (WIFSIGNALED(status)) r.signal = WTERMSIG(status);
  if (how.stdout_path.empty()) r.out = read_file(out);
  r.err = read_file(err);
  return r;
}

Run verify(const std::vector<std::string>& args, const Launch& how = {}) { return run(SEQI_VERIFY_EXE, args, how); }

// The run ended with `code` and stderr holding `fragment`; stderr is short and free of
// control characters (besides newlines).
void expect(const Run& r, int code, const std::string& fragment) {
  BOOST_TEST(r.signal == 0, describe(r));
  BOOST_TEST(r.code == code, describe(r));
  BOOST_TEST(r.err.find(fragment) != std::string::npos, "stderr lacks \"" << fragment << "\": " << describe(r));
  for (char c : r.err)
    BOOST_TEST_REQUIRE((c == '\n' || (static_cast<unsigned char>(c) >= 0x20 && static_cast<unsigned char>(c) < 0x7f)),
                       "control or non-ASCII byte " << int(static_cast<unsigned char>(c)) << " in stderr");
}

std::string one_pair_dataset(const std::string& input) {
  return R"({"dimension": 2, "pairs": [{"input": )" + input + R"(, "output": [["1", "1"]]}]})";
}

fs::path saved_model(const std::string& dataset_name) {
  const fs::path m = scratch_file("model-" + fs::path(dataset_name).stem().string() + ".json");
  if (!fs::exists(m)) {
    const Run r = verify({"--save-model", m.string(), dataset(dataset_name)});
    BOOST_REQUIRE_MESSAGE(r.code == 0, describe(r));
  }
  return m;
}

std::uint64_t test_seed() {
  if (const char* s = std::getenv("SEQI_SEED")) return std::stoull(s);
  return static_cast<std::uint64_t>(std::chrono::steady_clock::now().time_since_epoch().count());
}

}  // namespace

// ---- 1. messages quote a bounded, escaped excerpt; no recursion on deep input ----------

BOOST_AUTO_TEST_CASE(quote_value_is_bounded_and_escaped) {
  BOOST_TEST(quote_value("abc") == "\"abc\"");
  BOOST_TEST(quote_value(std::string("a\0b\x1b[31m\"\\\n\xff", 12)) == "\"a\\x00b\\x1b[31m\\\"\\\\\\n\\xff\"");
  const std::string q = quote_value(std::string(100000, 'x'));
  BOOST_TEST(q == "\"" + std::string(kQuotedValueChars, 'x') + "\"... (100000 bytes)");
}

BOOST_AUTO_TEST_CASE(hostile_strings_in_a_dataset_are_quoted_short_and_escaped) {
  // A coordinate string: ESC sequence, NUL, then 100k characters.
  const std::string hostile = R"(\u001b[31mred\u0000)" + std::string(100000, 'z');
  const fs::path p = scratch_file("hostile-coordinate.json");
  write_file(p, one_pair_dataset(R"([["0", "0"], ["1", ")" + hostile + R"("]])"));
  const Run r = verify({p.string()});
  expect(r, 2, "pair 1, input token 2, coordinate 2: the string \"\\x1b[31mred\\x00zz");
  BOOST_TEST(r.err.size() < 1000u, r.err.size());
  // A model scalar and an option value.
  const json model = json::parse(read_file(saved_model("tiny-d2.json")));
  json bad = model;
  bad["blocks"][0]["feed_forward"]["eta"] = "\x1b]0;title\x07" + std::string(5000, '9') + "x";
  const fs::path m = scratch_file("hostile-model.json");
  write_file(m, bad.dump());
  const Run rm = verify({"--model", m.string(), dataset("tiny-d2.json")});
  expect(rm, 2, "block 1 feed_forward.eta: \"\\x1b]0;title\\x0799");
  BOOST_TEST(rm.err.size() < 1000u, rm.err.size());
  const Run rt = verify({"--softmax", "--tau", "\x1b[2J" + std::string(3000, '1') + "q", dataset("tiny-d2.json")});
  expect(rt, 2, "--tau \"\\x1b[2J111");
  BOOST_TEST(rt.err.size() < 1000u, rt.err.size());
}

BOOST_AUTO_TEST_CASE(a_hostile_dataset_name_reaches_the_summary_escaped) {
  const fs::path p = scratch_file("evil-name.json");
  write_file(p, R"({"name": "\u001b[2Jevil\u0007", "dimension": 2, "pairs": [{"input": [[0, 0]], "output": [[1, 1]]}]})");
  const Run r = verify({p.string()});
  BOOST_TEST(r.code == 0, describe(r));
  BOOST_TEST(r.out.find("(\"\\x1b[2Jevil\\x07\")") != std::string::npos, r.out);
  BOOST_TEST(r.out.find('\x1b') == std::string::npos);
}

BOOST_AUTO_TEST_CASE(deeply_nested_model_values_are_refused_without_recursion) {
  const std::string deep = std::string(50000, '[') + std::string(50000, ']');
  for (const std::string& where : {std::string("format"), std::string("dimension"), std::string("blocks")}) {
    BOOST_TEST_CONTEXT(where) {
      json minimal_model = {{"format", "seqi-transformer"}, {"version", 1}, {"dimension", 2}, {"blocks", json::array()}};
      std::string text = minimal_model.dump();
      const std::string key = "\"" + where + "\":";
      const auto at = text.find(key) + key.size();
      const auto end = text.find_first_of(",}", at);
      text = text.substr(0, at) + deep + text.substr(end);
      const fs::path m = scratch_file("deep-" + where + ".json");
      write_file(m, text);
      expect(verify({"--model", m.string(), dataset("tiny-d2.json")}), 2, "nested deeper than 32 levels");
    }
  }
}

// ---- 2. out of memory: a message and exit 3, never an abort ---------------------------

BOOST_AUTO_TEST_CASE(out_of_memory_exits_3_with_a_message) {
  if (kSanitized) {
    BOOST_TEST_MESSAGE("skipped under AddressSanitizer (it reserves terabytes of address space)");
    return;
  }
  // About 19 MB of text holding 1,600,000 rationals: more than the 80 MB limit once parsed (with
  // jemalloc a quarter of it, 500 sequences, verifies in 58 MB; README: peak memory).
  const fs::path p = scratch_file("large.json");
  {
    std::ofstream out(p);
    out << R"({"dimension": 16, "pairs": [)";
    for (int j = 0; j < 2000; ++j) {
      out << (j ? "," : "") << R"({"input": [)";
      for (int t = 0; t < 50; ++t) {
        out << (t ? "," : "") << "[";
        for (int k = 0; k < 16; ++k) out << (k ? "," : "") << "\"" << (j * 50 + t) * 16 + k << "/7\"";
        out << "]";
      }
      out << R"(], "output": [)" << R"([)" << j << R"(,1,0,0,0,0,0,0,0,0,0,0,0,0,0,0]]})";
    }
    out << "]}";
  }
  const Run r = verify({"--exact", p.string()}, memory_limited(rlim_t{80} << 20));
  expect(r, 3, "out of memory");
}

// ---- 3. no hang: digit limits, bit growth limit, read-once inputs ----------------------

BOOST_AUTO_TEST_CASE(numbers_beyond_the_digit_limit_are_refused) {
  const fs::path p = scratch_file("many-digits.json");
  write_file(p, one_pair_dataset(R"([["0", "0"], [")" + std::string(3000000, '7') + R"(", "1"]])"));
  expect(verify({p.string()}), 2, "more than 10000 digits, the limit per number");
  const fs::path d = scratch_file("many-decimals.json");
  write_file(d, one_pair_dataset(R"([["0", "0"], ["0.)" + std::string(200000, '3') + R"(", "1"]])"));
  expect(verify({d.string()}), 2, "more than 10000 digits");
  const fs::path n = scratch_file("many-digits-number.json");
  write_file(n, one_pair_dataset(R"([["0", "0"], [)" + std::string(1000000, '7') + R"(, "1"]])"));
  expect(verify({n.string()}), 2, "(1000000 bytes) is too large to be a JSON number");
}

BOOST_AUTO_TEST_CASE(coordinates_at_the_digit_limit_verify) {
  // Placement's shrink factor is computed from bit lengths, not halved one step at a time.
  const std::string big = "9" + std::string(kMaxNumberDigits - 1, '0');
  const fs::path p = scratch_file("big-coordinates.json");
  write_file(p, R"({"dimension": 2, "pairs": [{"input": [["0", "0"], [")" + big + R"(", "1"]], "output": [["1", "1"]]},
                                               {"input": [["1", "0"]], "output": [["2", "2"]]}]})");
  const Run r = verify({"--exact", p.string()});
  BOOST_TEST(r.code == 0, describe(r));
}

BOOST_AUTO_TEST_CASE(exponent_with_leading_zeros_is_read) {
  BOOST_TEST(parse_rational("1e000001").value() == Rational(10));
  BOOST_TEST(parse_rational("-2.5E-0000000000002").value() == Rational(-1, 40));
  BOOST_TEST(!parse_rational("1e0001001").has_value());
}

BOOST_AUTO_TEST_CASE(model_whose_values_explode_stops_at_the_bit_limit_naming_the_block) {
  // 1000 blocks whose attention multiplies every token by rho = 10^1000 (FF: W = 0); the
  // limit stops the pass near block 316.
  json blocks = json::array();
  for (int k = 0; k < 1000; ++k)
    blocks.push_back({{"phase", "user"},
                      {"attention", {{"rho", "1e1000"}, {"A", {{"alpha", "0"}}}, {"V", {{"alpha", "0"}}}}},
                      {"feed_forward",
                       {{"eta", "1"},
                        {"U", json::array({json::array({"1", "0"})})},
                        {"b", json::array({"0"})},
                        {"W", json::array({json::array({"0"}), json::array({"0"})})}}}});
  const json model = {{"format", "seqi-transformer"}, {"version", 1}, {"dimension", 2}, {"blocks", blocks}};
  const fs::path m = scratch_file("exploding-model.json");
  write_file(m, model.dump());
  const Run r = verify({"--model", m.string(), dataset("tiny-d2.json")}, timed_out_after(60));
  expect(r, 2, "bits per coordinate during evaluation");
  BOOST_TEST(r.err.find("block ") != std::string::npos, r.err);
  const Run s = verify({"--softmax", "--tau", "1/100", "--model", m.string(), dataset("tiny-d2.json")}, timed_out_after(60));
  expect(s, 2, "bits per coordinate during evaluation");
  BOOST_TEST(s.err.find("block ") != std::string::npos, s.err);
}

BOOST_AUTO_TEST_CASE(a_dataset_from_a_fifo_or_stdin_is_read_once_and_hashed_as_read) {
  const std::string text = read_file(dataset("tiny-d2.json"));
  const std::string hash = sha256_hex(text);
  // stdin
  const fs::path tex = scratch_file("stdin-cert.tex");
  const Run r = verify({"--report", tex.string(), "/dev/stdin"}, reading_stdin(dataset("tiny-d2.json")));
  BOOST_TEST(r.code == 0, describe(r));
  BOOST_TEST(read_file(scratch_file("stdin-cert-data.tex")).find(hash) != std::string::npos);
  // FIFO: a writer thread feeds it once; a second open would block forever (the timeout fails it).
  const fs::path fifo = scratch_file("data.fifo");
  BOOST_REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
  std::thread writer([&] {
    std::ofstream out(fifo, std::ios::binary);
    out << text;
  });
  const fs::path tex2 = scratch_file("fifo-cert.tex");
  const Run f = verify({"--report", tex2.string(), fifo.string()}, timed_out_after(60));
  writer.join();
  BOOST_TEST(f.code == 0, describe(f));
  BOOST_TEST(read_file(scratch_file("fifo-cert-data.tex")).find(hash) != std::string::npos);
}

// ---- 4. memory before the error --------------------------------------------------------

BOOST_AUTO_TEST_CASE(an_enormous_token_before_dimension_is_refused_at_the_limit) {
  std::string token = "[0";
  for (int k = 0; k < 1000001; ++k) token += ",0";
  const fs::path p = scratch_file("enormous-token.json");
  write_file(p, R"({"pairs": [{"input": [)" + token + R"(]], "output": [[1, 1]]}], "dimension": 2})");
  expect(verify({p.string()}, memory_limited(rlim_t{1} << 30)), 2,
         "pair 1, input token 1 has more than 1000000 coordinates");
  // After a first token of the right size, a longer one is not stored beyond it.
  const fs::path q = scratch_file("long-second-token.json");
  write_file(q, R"({"pairs": [{"input": [[0, 0], )" + token + R"(]], "output": [[1, 1]]}], "dimension": 2})");
  expect(verify({q.string()}), 2, "pair 1, input token 2 has the wrong dimension: expected 2 coordinates");
}

// A version 1.0 .npy file of `shape` float64 zeros.
void write_zero_npy(const fs::path& p, const std::string& shape, std::size_t values) {
  std::string header = "{'descr': '<f8', 'fortran_order': False, 'shape': " + shape + ", }";
  while ((10 + header.size() + 1) % 64 != 0) header += ' ';
  header += '\n';
  std::ofstream out(p, std::ios::binary);
  out << "\x93NUMPY" << '\x01' << '\x00' << static_cast<char>(header.size() & 0xff)
      << static_cast<char>(header.size() >> 8) << header;
  const std::string zeros(values * 8, '\0');
  out << zeros;
}

BOOST_AUTO_TEST_CASE(npy_counts_that_disagree_in_the_headers_fail_before_decoding) {
  // 3 million values (24 MB; hundreds of MB once decoded) against outputs for 2 sequences.
  const fs::path x = scratch_file("big-X.npy"), y = scratch_file("small-Y.npy");
  write_zero_npy(x, "(1000, 1000, 3)", 3000000);
  write_zero_npy(y, "(2, 1, 3)", 6);
  const Run r = verify({"import", "npy", "--inputs", x.string(), "--outputs", y.string(), "-o",
                        scratch_file("npy-out.json").string()},
                       memory_limited(rlim_t{120} << 20));
  expect(r, 2, "2 output sequences but " + x.string() + " has 1000 input sequences");
}

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
  expect(verify({"--model", m, "--brute", data}), 2, "--brute applies to the construction");
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
