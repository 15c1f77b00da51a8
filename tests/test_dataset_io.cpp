#include <boost/test/unit_test.hpp>

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "seqi/io/dataset_json.hpp"
#include "seqi/io/hypotheses.hpp"
#include "dataset_io_support.hpp"

BOOST_AUTO_TEST_SUITE(test_dataset_io)

namespace fs = std::filesystem;
using seqi::Dataset;
using seqi::InputError;
using seqi::Point;
using seqi::Rational;
using namespace seqi_test::dataset_io;

namespace {

Point pt(std::initializer_list<Rational> coords) {
  Point p(static_cast<Eigen::Index>(coords.size()));
  Eigen::Index k = 0;
  for (const auto& c : coords) p[k++] = c;
  return p;
}

Dataset parse(const std::string& text) { return seqi::parse_dataset_json(text, "mem.json"); }

// The error message of parsing `text` with `read`, or "<no error>".
template <class Read>
std::string error_with(const std::string& text, Read read) {
  try {
    read(text);
  } catch (const InputError& e) {
    return e.what();
  }
  return "<no error>";
}

// The error message of parsing `text`, or "<no error>"; the storing pass alone (verify-mpi's
// processes but the first) must give the same.
std::string error_of(const std::string& text) {
  const std::string both = error_with(text, parse);
  const std::string stored = error_with(text, [](const std::string& t) {
    return seqi::parse_dataset_json_stored_only(t, "mem.json");
  });
  BOOST_TEST(stored == both, "the storing pass alone on: " << text.substr(0, 200));
  return both;
}

// Asserts that parsing fails with an InputError naming the source and containing `fragment`.
void expect_error(const std::string& text, const std::string& fragment) {
  const std::string message = error_of(text);
  BOOST_TEST_INFO("message: " << message);
  BOOST_TEST(message.rfind("mem.json: ", 0) == 0);
  BOOST_TEST_INFO("message: " << message);
  BOOST_TEST(message.find(fragment) != std::string::npos, "fragment: " << fragment);
}

}  // namespace

// ---------------------------------------------------------------- exact numbers

BOOST_AUTO_TEST_CASE(json_numbers_are_read_exactly_from_their_text) {
  Dataset d = parse(one_pair(
      R"([[0.1, 1e-3], [12345678901234567890123, -0], [-0.0, 2.5E+2], [18446744073709551615, -9223372036854775808], [0.30000000000000004, 1E-2]])"));
  const auto& in = d.pairs[0].input;
  BOOST_TEST(in.size() == 5u);
  BOOST_TEST(in[0][0] == Rational(1, 10));  // not the double 0.1000000000000000055...
  BOOST_TEST(in[0][1] == Rational(1, 1000));
  BOOST_TEST(in[1][0] == Rational(seqi::Integer("12345678901234567890123")));
  BOOST_TEST(in[1][1] == 0);
  BOOST_TEST(in[2][0] == 0);  // negative zero is zero
  BOOST_TEST(in[2][1] == 250);
  BOOST_TEST(in[3][0] == Rational(seqi::Integer("18446744073709551615")));
  BOOST_TEST(in[3][1] == Rational(seqi::Integer("-9223372036854775808")));
  BOOST_TEST(in[4][0] == Rational(seqi::Integer("30000000000000004"), seqi::Integer("100000000000000000")));
  (void)in;
}

BOOST_AUTO_TEST_CASE(rational_strings_are_exact) {
  Dataset d = parse(one_pair(R"([["-3/7", "2"], ["0.125", "1e-3"], [" 4/6 ", "-2.5E+2"]])"));
  const auto& in = d.pairs[0].input;
  BOOST_TEST(in[0][0] == Rational(-3, 7));
  BOOST_TEST(in[0][1] == 2);
  BOOST_TEST(in[1][0] == Rational(1, 8));
  BOOST_TEST(in[1][1] == Rational(1, 1000));
  BOOST_TEST(in[2][0] == Rational(2, 3));
  BOOST_TEST(in[2][1] == -250);
}

BOOST_AUTO_TEST_CASE(underflowing_json_number_is_still_exact) {
  // strtod gives 0 for 1e-400; the exact reader must not.
  Dataset d = parse(one_pair(R"([[1e-400, 0]])"));
  BOOST_TEST(d.pairs[0].input[0][0] > 0);
  BOOST_TEST(d.pairs[0].input[0][0] * seqi::Rational(seqi::Integer("1" + std::string(400, '0'))) == 1);
}

BOOST_AUTO_TEST_CASE(huge_integer_beyond_double_range_is_reported) {
  // nlohmann refuses numbers that overflow a double; the message says to use a string.
  expect_error(one_pair("[[1" + std::string(400, '0') + ", 0]]"), "is too large to be a JSON number");
  Dataset d = parse(one_pair("[[\"1" + std::string(400, '0') + "\", 0]]"));
  BOOST_TEST(d.pairs[0].input[0][0] == Rational(seqi::Integer("1" + std::string(400, '0'))));
}

// ---------------------------------------------------------------- structure

BOOST_AUTO_TEST_CASE(name_defaults_to_file_stem_and_unknown_keys_are_ignored) {
  Dataset d = seqi::parse_dataset_json(
      R"({"comment": {"deep": [[[[1]]], {"a": null}]}, "dimension": 2, "version": 3,
          "pairs": [{"note": [1, [2, {"x": true}]], "input": [[0, 0], [1, 0]], "output": [[1, 1]]}]})",
      "some/dir/my-data.json");
  BOOST_TEST(d.name == "my-data");
  BOOST_TEST(d.dimension == 2);
  BOOST_TEST(d.pairs.size() == 1u);
  BOOST_TEST(d.pairs[0].input.size() == 2u);
  BOOST_TEST(d.pairs[0].output.size() == 1u);
  BOOST_TEST(d.notes.empty());

  Dataset named = parse(R"({"name": "hello", "pairs": [{"output": [[1, 1]], "input": [[0, 0]]}], "dimension": 2})");
  BOOST_TEST(named.name == "hello");
  BOOST_TEST(named.sum_m() == 1u);
  BOOST_TEST(named.total_input_tokens() == 1u);
}

BOOST_AUTO_TEST_CASE(deep_nesting_neither_recurses_nor_crashes) {
  const std::size_t depth = 200000;
  const std::string deep = std::string(depth, '[') + std::string(depth, ']');
  // Inside an ignored key it is refused at the limit of every JSON reader (32 levels), which
  // it may reach; as a coordinate it is refused at once.
  expect_error(R"({"junk": )" + deep + R"(, "dimension": 2, "pairs": [{"input": [[0, 0]], "output": [[1, 1]]}]})",
               "nested deeper than 32 levels");
  const std::string at_limit = std::string(31, '[') + std::string(31, ']');  // 32 with the top-level object
  Dataset d = parse(R"({"junk": )" + at_limit + R"(, "dimension": 2, "pairs": [{"input": [[0, 0]], "output": [[1, 1]]}]})");
  BOOST_TEST(d.pairs.size() == 1u);
  expect_error(one_pair("[[0, " + deep + "]]"), "pair 1, input token 1, coordinate 2 is an array");
}

BOOST_AUTO_TEST_CASE(malformed_json_reports_byte_line_and_column) {
  expect_error("{\"dimension\": 2,\n  \"pairs\": [}\n", "malformed JSON at byte 30 (line 2, column 13)");
  expect_error("", "malformed JSON at byte");
  expect_error(one_pair("[[0, 0]]") + " extra", "malformed JSON");
  expect_error(R"({"dimension": 2, "pairs": [{"input": [[0, 0]], "output": [[1, 1]]}])", "malformed JSON");
}

BOOST_AUTO_TEST_CASE(missing_and_misspelled_keys) {
  expect_error(R"({"pairs": [{"input": [[0, 0]], "output": [[1, 1]]}]})", "missing key \"dimension\"");
  expect_error(R"({"dimension": 2})", "missing key \"pairs\"");
  expect_error(R"({"dimension": 2, "pair": []})", "missing key \"pairs\" at the top level (found unknown key \"pair\"; misspelled?)");
  expect_error(R"({"dimension": 2, "pairs": [{"input": [[0, 0]], "outputs": [[1, 1]]}]})",
               "pair 1: missing key \"output\" (found unknown key \"outputs\"; misspelled?)");
  expect_error(R"({"dimension": 2, "pairs": [{"input": [[0, 0]], "output": [[1, 1]]}, {"output": [[1, 1]]}]})",
               "pair 2: missing key \"input\"");
}

BOOST_AUTO_TEST_CASE(duplicate_keys_are_rejected) {
  expect_error(R"({"dimension": 2, "dimension": 3, "pairs": []})", "key \"dimension\" appears twice");
  expect_error(R"({"dimension": 2, "pairs": [{"input": [[0, 0]], "input": [[1, 0]], "output": [[1, 1]]}]})",
               "pair 1: key \"input\" appears twice");
}

BOOST_AUTO_TEST_CASE(wrong_types) {
  expect_error("[1, 2]", "the top level must be an object");
  expect_error("42", "the top level must be an object");
  expect_error(R"({"name": 5, "dimension": 2, "pairs": []})", "\"name\" must be a string, got a number");
  expect_error(R"({"dimension": "2", "pairs": []})", "\"dimension\" must be an integer such as 2, got a string");
  expect_error(R"({"dimension": 2.0, "pairs": []})", "\"dimension\" must be an integer such as 2, got a number");
  expect_error(R"({"dimension": [2], "pairs": []})", "\"dimension\" must be an integer such as 2, got an array");
  expect_error(R"({"dimension": 99999999999, "pairs": []})", "\"dimension\" 99999999999 is too large");
  expect_error(R"({"dimension": 2, "pairs": {}})", "\"pairs\" must be an array");
  expect_error(R"({"dimension": 2, "pairs": "none"})", "\"pairs\" must be an array");
  expect_error(R"({"dimension": 2, "pairs": [[1, 2]]})", "pair 1 must be an object");
  expect_error(R"({"dimension": 2, "pairs": [{"input": [[0, 0]], "output": [[1, 1]]}, 7]})",
               "pair 2 must be an object {\"input\": [...], \"output\": [...]}, got a number");
  expect_error(R"({"dimension": 2, "pairs": [{"input": {"a": 1}, "output": [[1, 1]]}]})",
               "pair 1: \"input\" must be an array of tokens such as [[0, 1], [2, 3]], got an object");
  expect_error(R"({"dimension": 2, "pairs": [{"input": [[0, 0]], "output": "x"}]})",
               "pair 1: \"output\" must be an array of tokens such as [[0, 1], [2, 3]], got a string");
  expect_error(one_pair("[0, 0]"), "pair 1, input token 1 must be an array of coordinates, got a number");
  expect_error(one_pair("[[0, 0], {\"x\": 1}]"), "pair 1, input token 2 must be an array of coordinates such as");
  expect_error(one_pair("[[0, [1]]]"), "pair 1, input token 1, coordinate 2 is an array");
}

BOOST_AUTO_TEST_CASE(bad_coordinates_name_pair_token_and_coordinate) {
  expect_error(one_pair("[[0, 0], [1, null]]"), "pair 1, input token 2, coordinate 2 is null");
  expect_error(one_pair("[[false, 0]]"), "pair 1, input token 1, coordinate 1 is a boolean (false)");
  expect_error(one_pair("[[0, 0]]", "[[\"abc\", 1]]"),
               "pair 1, output token 1, coordinate 1: the string \"abc\" is not an exact rational");
  expect_error(one_pair("[[\"nan\", 0]]"), "coordinate 1: the string \"nan\" is not an exact rational");
  expect_error(one_pair("[[\"1.2.3\", 0]]"), "the string \"1.2.3\" is not an exact rational");
  expect_error(one_pair("[[\"\", 0]]"), "pair 1, input token 1, coordinate 1: the string \"\" is not an exact rational");
  expect_error(one_pair("[[0, 0], [1, 0], [2, \"5/0\"]]"),
               "pair 1, input token 3, coordinate 2: the string \"5/0\" has a zero denominator");
  expect_error(one_pair("[[\"1e9999999\", 0]]"), "exponent too large");
  expect_error(one_pair("[[1e-9999999, 0]]"), "the number \"1e-9999999\" is not an exact rational (exponent too large");
}

BOOST_AUTO_TEST_CASE(token_dimension_is_checked_whatever_the_key_order) {
  const std::string fragment = "pair 2, output token 1 has the wrong dimension: expected 2 coordinates (\"dimension\": 2), got 3";
  const std::string pairs =
      R"([{"input": [[0, 0]], "output": [[1, 1]]}, {"input": [[0, 1], [1, 0]], "output": [[1, 2, 3]]}])";
  expect_error(R"({"dimension": 2, "pairs": )" + pairs + "}", fragment);
  expect_error(R"({"pairs": )" + pairs + R"(, "dimension": 2})", fragment);  // checked after parsing
  expect_error(one_pair("[[0, 0], [1]]"), "pair 1, input token 2 has the wrong dimension: expected 2 coordinates (\"dimension\": 2), got 1");
  expect_error(one_pair("[[]]"), "got 0");
  expect_error(one_pair("[[1, 2, 3, 4, 5, 6, 7]]"), "got 7");
}

BOOST_AUTO_TEST_CASE(empty_pairs_and_empty_sequences) {
  expect_error(R"({"dimension": 2, "pairs": []})", "\"pairs\" is empty");
  expect_error(one_pair("[]"), "pair 1: the input sequence is empty");
  expect_error(one_pair("[[0, 0]]", "[]"), "pair 1: the output sequence is empty");
}

// ---------------------------------------------------------------- hypotheses

BOOST_AUTO_TEST_CASE(h4_dimension_at_least_two) {
  expect_error(R"({"dimension": 1, "pairs": [{"input": [[0], [1]], "output": [[2]]}]})",
               "\"dimension\" is 1, but the theorem needs d >= 2 (H4)");
  expect_error(R"({"pairs": [{"input": [[0], [1]], "output": [[2]]}], "dimension": 1})",
               "the theorem needs d >= 2");
  expect_error(R"({"dimension": 0, "pairs": []})", "the theorem needs d >= 2");
  expect_error(R"({"dimension": -3, "pairs": []})", "\"dimension\" is -3, but the theorem needs d >= 2");
}

BOOST_AUTO_TEST_CASE(h1_h2_duplicate_tokens_name_both_indices) {
  expect_error(one_pair("[[0, 0], [1, 0], [0, 0]]"), "pair 1: input tokens 1 and 3 are equal (0, 0); H1");
  // Exact equality: 0.5 and "1/2", and -0.0 and 0, are the same rational.
  expect_error(one_pair("[[3, 3], [0.5, -0.0], [\"1/2\", 0]]"), "pair 1: input tokens 2 and 3 are equal (1/2, 0)");
  // The earliest repetition is reported: token 4 repeats token 2 before token 5 repeats token 1.
  expect_error(one_pair("[[1, 1], [2, 2], [3, 3], [2, 2], [1, 1]]"), "input tokens 2 and 4 are equal");
  expect_error(R"({"dimension": 2, "pairs": [{"input": [[0, 0]], "output": [[1, 1]]},
                  {"input": [[0, 0], [1, 0], [2, 0]], "output": [[5, 5], [6, 6], [5, 5]]}]})",
               "pair 2: output tokens 1 and 3 are equal (5, 5); H2");
  // Nearly equal is not equal.
  Dataset d = parse(one_pair("[[0.1, 0], [0.10000000000000001, 0]]"));
  BOOST_TEST(d.pairs[0].input.size() == 2u);
}

BOOST_AUTO_TEST_CASE(h5_more_outputs_than_inputs) {
  expect_error(R"({"dimension": 2, "pairs": [{"input": [[0, 0]], "output": [[1, 1]]},
                  {"input": [[0, 0], [1, 0]], "output": [[1, 1], [2, 2], [3, 3]]}]})",
               "pair 2 has m = 3 output tokens but only n = 2 input tokens; H5 needs m <= n");
  Dataset d = parse(one_pair("[[0, 0], [1, 0]]", "[[5, 5], [6, 6]]"));  // m = n is fine
  BOOST_TEST(d.sum_m() == 2u);
}

BOOST_AUTO_TEST_CASE(h3_equal_input_sets_with_different_targets_is_an_error) {
  expect_error(R"({"dimension": 2, "pairs": [
                  {"input": [[0, 0], [1, 0]], "output": [[1, 1]]},
                  {"input": [[5, 5]], "output": [[1, 1]]},
                  {"input": [[1, 0], [0, 0]], "output": [[2, 2]]}]})",
               "pairs 1 and 3 have the same input set but different output sets (H3): no "
               "permutation-equivariant map can send equal inputs to different outputs");
  // Different output sets of different sizes too.
  expect_error(R"({"dimension": 2, "pairs": [
                  {"input": [[0, 0], [1, 0]], "output": [[1, 1]]},
                  {"input": [[1, 0], [0, 0]], "output": [[1, 1], [2, 2]]}]})",
               "pairs 1 and 2 have the same input set but different output sets");
}

BOOST_AUTO_TEST_CASE(h3_equal_pairs_are_merged_with_a_note) {
  Dataset d = parse(R"({"dimension": 2, "pairs": [
      {"input": [[0, 0], [1, 0]], "output": [[1, 1], [2, 2]]},
      {"input": [[5, 5]], "output": [[1, 1]]},
      {"input": [[1, 0], [0, 0]], "output": [[2, 2], [1, 1]]},
      {"input": [[0, 0], [1, 0], [2, 0]], "output": [[1, 1]]},
      {"input": [["5/1", 5.0]], "output": [[1, 1]]},
      {"input": [[0, 0], ["1", 0]], "output": [["2", "2"], [1, 1]]}]})");
  BOOST_TEST(d.pairs.size() == 3u);
  // The first of each group is kept, in file order.
  BOOST_TEST(d.pairs[0].input.size() == 2u);
  BOOST_TEST(seqi::equal_points(d.pairs[1].input[0], pt({5, 5})));
  BOOST_TEST(d.pairs[2].input.size() == 3u);
  BOOST_TEST(seqi::equal_points(d.pairs[0].input[0], pt({0, 0})));  // kept as written
  BOOST_TEST(d.notes.size() == 2u);
  std::set<std::string> notes(d.notes.begin(), d.notes.end());
  BOOST_TEST(notes.count("pairs 3, 6 repeat pair 1 (equal input sets and equal output sets); merged into pair 1 (H3 deduplication)") == 1u);
  BOOST_TEST(notes.count("pair 5 repeats pair 2 (equal input sets and equal output sets); merged into pair 2 (H3 deduplication)") == 1u);
}

BOOST_AUTO_TEST_CASE(check_hypotheses_on_a_dataset_built_in_memory) {
  Dataset d;
  d.name = "built";
  d.dimension = 2;
  d.pairs.push_back({{pt({0, 0}), pt({1, 0})}, {pt({1, 1})}});
  d.pairs.push_back({{pt({0, 0}), pt({1, 0})}, {pt({1, 1})}});
  seqi::check_hypotheses(d, "built");
  BOOST_TEST(d.pairs.size() == 1u);
  BOOST_TEST(d.notes.size() == 1u);

  Dataset bad = d;
  bad.pairs[0].output.push_back(pt({1, 2, 3}));
  BOOST_CHECK_EXCEPTION(seqi::check_hypotheses(bad, "built"), InputError, [](const InputError& e) {
    return std::string(e.what()) ==
           "built: pair 1, output token 2 has the wrong dimension: expected 2 coordinates "
           "(\"dimension\": 2), got 3. Give every token exactly \"dimension\" coordinates.";
  });
}

BOOST_AUTO_TEST_CASE(hypothesis_checks_scale_to_many_tokens) {
  // One sequence of 200000 distinct tokens with a single repetition at the very end, and
  // 20000 pairs whose inputs coincide as sets. A quadratic check would take minutes.
  Dataset d;
  d.dimension = 2;
  const long n = 200000;
  seqi::SequencePair big;
  for (long k = 0; k < n; ++k) big.input.push_back(pt({Rational(k % 1000), Rational(k / 1000)}));
  big.output.push_back(pt({-1, -1}));
  d.pairs.push_back(big);
  for (long j = 0; j < 20000; ++j) {
    seqi::SequencePair p;
    p.input = {pt({j, 1 + j % 2}), pt({j, 2 - j % 2})};  // odd j: the two tokens swapped
    p.output = {pt({0, 0})};
    d.pairs.push_back(p);
    d.pairs.push_back(p);
  }
  Dataset ok = d;
  seqi::check_hypotheses(ok, "scale");
  BOOST_TEST(ok.pairs.size() == 20001u);
  BOOST_TEST(ok.notes.size() == 20000u);

  d.pairs[0].input.push_back(pt({123, 45}));  // repeats token 45124
  BOOST_CHECK_EXCEPTION(seqi::check_hypotheses(d, "scale"), InputError, [](const InputError& e) {
    return std::string(e.what()).find("pair 1: input tokens 45124 and 200001 are equal (123, 45)") !=
           std::string::npos;
  });
}

BOOST_AUTO_TEST_CASE(merge_notes_list_at_most_ten_pairs) {
  std::string pairs;
  for (int k = 0; k < 13; ++k) pairs += std::string(k ? "," : "") + R"({"input": [[0, 0]], "output": [[1, 1]]})";
  Dataset d = parse(R"({"dimension": 2, "pairs": [)" + pairs + "]}");
  BOOST_TEST(d.pairs.size() == 1u);
  BOOST_TEST(d.notes.size() == 1u);
  BOOST_TEST(d.notes[0] == "pairs 2, 3, 4, 5, 6, 7, 8, 9, 10, 11 and 2 more repeat pair 1 (equal input sets "
                           "and equal output sets); merged into pair 1 (H3 deduplication)");
}

BOOST_AUTO_TEST_SUITE_END()
