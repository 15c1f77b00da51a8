// Hostile inputs and invocations, each class with its exit code and a message
// fragment: quoted values bounded and escaped, no recursion on deep input, out of memory,
// no hang on huge numbers or models, read-once inputs. verify runs as a subprocess.
// No false "verified", atomic checked outputs and importer options: test_hardening_files.cpp.
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

BOOST_AUTO_TEST_SUITE(test_hardening)

using namespace seqi;
namespace fs = std::filesystem;
using json = nlohmann::json;
using namespace seqi_test::hardening;

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

BOOST_AUTO_TEST_SUITE_END()
