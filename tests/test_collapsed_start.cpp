// FloatRunBound's collapsed start (a mean collapse's block 0 attention bounded on the inputs by
// chunks of sequences, then one token per sequence) against the bound over every input token
// (block 0's attention on all tokens, then keep_one_token_per_sequence()): the same facts in both
// formats, failures included, on one thread, several, and parts of a sharded run.
#include <boost/test/unit_test.hpp>

#include <random>
#include <string>
#include <vector>

#include "seqi/construction/construction.hpp"
#include "seqi/core/sharding.hpp"
#include "seqi/float_statement/float_reference.hpp"
#include "seqi/float_statement/float_run.hpp"
#include "seqi/io/dataset_json.hpp"
#include "thread_sharding.hpp"

BOOST_AUTO_TEST_SUITE(test_collapsed_start)

using namespace seqi;

namespace {

const std::vector<FloatFormat> kBoth{kBinary64, kBinary32};

// N sequences of 1 to 6 tokens in d = 3, small integers over 8, each with its own target (one
// token: the sequence's label among 5); `huge` (when given) is put as the first coordinate of
// sequence `at`'s last token. Seeded.
Dataset dataset(std::size_t N, std::uint64_t seed, const std::string& huge = "", std::size_t at = 0) {
  std::mt19937_64 rng(seed);
  std::string text = R"({"name": "collapsed start", "dimension": 3, "pairs": [)";
  for (std::size_t j = 0; j < N; ++j) {
    const std::size_t n = 1 + rng() % 6;
    text += j ? ", " : "";
    text += R"({"input": [)";
    for (std::size_t i = 0; i < n; ++i) {
      text += i ? ", [" : "[";
      for (int c = 0; c < 3; ++c) {
        const bool big = !huge.empty() && j == at && i + 1 == n && c == 0;
        text += (c ? ", " : "") + (big ? huge : "\"" + std::to_string(long(rng() % 41) - 20) + "/8\"");
      }
      text += "]";
    }
    text += R"(], "output": [[)" + std::to_string(rng() % 5) + ", 0, 0]]}";
  }
  return parse_dataset_json(text + "]}", "collapsed-start test");
}

std::string facts_text(const std::vector<FloatRunFacts>& facts) {
  std::string t;
  for (const auto& f : facts)
    t += f.format + (f.certified ? " delta " + std::to_string(f.delta) + " relative " + std::to_string(f.relative_delta)
                                 : " failed: " + f.failure) +
         ", decisions " + std::to_string(f.decisions) + ", kinks " + std::to_string(f.kinks) + ", bounded " +
         std::to_string(f.tokens_bounded) + ", charged " + std::to_string(f.tokens_charged) + "; ";
  return t;
}

// The bound as the certification ran it before the collapsed start: every input token.
std::string over_every_token(const Construction& built, const Dataset& data, Setting kind) {
  ExactForward pass(inputs_of(data), 1);
  ExactReference view(pass);
  FloatRunBound bound(built.model, view, pass.state().begin, kind, Rational(1), 1, kBoth);
  for (std::size_t b = 0; b < built.model.blocks.size(); ++b)
    (void)bound.block(
        b,
        [&](const std::vector<std::size_t>&) {
          pass.apply_attention(built.model.blocks[b].sa);
          if (b == 0) {
            BOOST_REQUIRE(pass.keep_one_token_per_sequence());
            bound.keep_one_token_per_sequence();
          }
          return std::optional<std::string>();
        },
        [&](const std::optional<OneDirectionForm>& form) {
          pass.apply_feed_forward(built.model.blocks[b].ff, form);
          return std::optional<std::string>();
        });
  return facts_text(bound.finish());
}

// The collapsed start: z_j v per sequence, the inputs read by the bound alone.
std::string collapsed(const Construction& built, const Dataset& data, Setting kind, const Execution& exec) {
  TokenState kept;
  for (const Rational& z : built.record.interpolation.z) {
    kept.tokens.push_back(built.record.interpolation.v * z);
    kept.begin.push_back(kept.tokens.size());
  }
  ExactForward pass = ExactForward::kept_one_per_sequence(std::move(kept), exec.threads, exec.sharding);
  ExactReference view(pass);
  FloatRunBound bound(built.model, view, data, kind, Rational(1), exec, kBoth);
  for (std::size_t b = 0; b < built.model.blocks.size(); ++b)
    (void)bound.block(
        b,
        [&](const std::vector<std::size_t>&) {
          pass.apply_attention(built.model.blocks[b].sa);  // never block 0's: the bound skips it
          return std::optional<std::string>();
        },
        [&](const std::optional<OneDirectionForm>& form) {
          pass.apply_feed_forward(built.model.blocks[b].ff, form);
          return std::optional<std::string>();
        });
  return facts_text(bound.finish());
}

void expect_same(const Dataset& data, std::uint64_t seed) {
  const Construction built = build_interpolating_transformer(data, seed, 1, {true, false});
  BOOST_REQUIRE_MESSAGE(built.record.collapse_block == 0 && built.model.blocks.front().sa.A.is_zero(),
                        "seed " << seed << ": not a mean collapse");
  for (Setting kind : {Setting::hardmax, Setting::softmax}) {
    const std::string all = over_every_token(built, data, kind);
    BOOST_TEST(collapsed(built, data, kind, {nullptr, 1, nullptr}) == all, "seed " << seed);
    BOOST_TEST(collapsed(built, data, kind, {nullptr, 3, nullptr}) == all, "seed " << seed << ", 3 threads");
    const auto parts =
        seqi_test::on_parts(2, [&](const Sharding& s) { return collapsed(built, data, kind, {nullptr, 1, &s}); });
    BOOST_TEST(parts[0] == all, "seed " << seed << ", part 0 of 2");
    BOOST_TEST(parts[1] == all, "seed " << seed << ", part 1 of 2");
  }
}

}  // namespace

// 600 sequences: three chunks of the collapsed start, split between the parts.
BOOST_AUTO_TEST_CASE(collapsed_start_equals_the_bound_over_every_token) {
  for (std::uint64_t seed : {1, 2}) expect_same(dataset(600, seed), seed);
}

// A coordinate beyond binary32's range in sequence 401 (the second chunk): the float32 statement
// fails at the input there, named with its sequence; the float64 one passes the input.
BOOST_AUTO_TEST_CASE(an_input_failure_names_its_sequence_across_chunks) {
  const Dataset data = dataset(600, 3, "1e31", 400);
  expect_same(data, 3);
  const Construction built = build_interpolating_transformer(data, 3, 1, {true, false});
  const std::string facts = collapsed(built, data, Setting::hardmax, {nullptr, 1, nullptr});
  BOOST_TEST(facts.find("float32 failed: block 1 (input), sequence 401, token ") != std::string::npos, facts);
  BOOST_TEST(facts.find("float64 failed: block 1 (input)") == std::string::npos, facts);  // in binary64's range
}

BOOST_AUTO_TEST_SUITE_END()
