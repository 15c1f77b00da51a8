// The leader construction at several sizes of the sequence shift (shift_sizes.hpp): the kept
// construction is the lightest of the sizes, each built alone from the same seed, and certified;
// datasets above the token limit or without a shift are built at the drawn size only.
#include <boost/test/unit_test.hpp>

#include <algorithm>
#include <optional>
#include <string>

#include "seqi/certification/run_report.hpp"
#include "seqi/construction/construction.hpp"
#include "seqi/construction/leader_construction.hpp"
#include "seqi/construction/shift_sizes.hpp"
#include "seqi/io/dataset_json.hpp"
#include "seqi/io/random_dataset.hpp"
#include "build_paths.hpp"

BOOST_AUTO_TEST_SUITE(test_shift_sizes)

using namespace seqi;

namespace {

// The exact ||theta||^2 of the leader construction with v / 2^h, built alone (Phase S of its own);
// nullopt when that size leaves two tokens equal.
std::optional<Rational> norm_at(const Dataset& data, std::uint64_t seed, int h) {
  Construction empty;
  empty.model.dimension = data.dimension;
  empty.record.seed = seed;
  try {
    LeaderVariants alone(data, empty, 1, {h});
    alone.finish(Execution{});
    return exact_norm_sq(alone.built().model);
  } catch (const ConstructionError&) {
    return std::nullopt;
  }
}

const ChoiceLog* sizes_choice(const Construction& built) {
  const auto it = std::find_if(built.record.choices.begin(), built.record.choices.end(), [](const ChoiceLog& c) {
    return c.what.rfind("sequence shift of the leader construction", 0) == 0;
  });
  return it == built.record.choices.end() ? nullptr : &*it;
}

}  // namespace

BOOST_AUTO_TEST_CASE(the_kept_size_is_the_lightest_of_the_sizes_built_alone) {
  const Dataset data = read_dataset_file(std::string(SEQI_DATASETS_DIR) + "/words-300.json");
  const ConstructionOptions leaders_only{false, false};
  const Construction built = build_interpolating_transformer(data, 1, 2, leaders_only);
  std::optional<Rational> lightest, drawn;
  for (int h : shift_halvings()) {
    const auto n = norm_at(data, 1, h);
    if (h == 0) drawn = n;
    if (n && (!lightest || *n < *lightest)) lightest = n;
  }
  BOOST_REQUIRE(lightest);
  BOOST_TEST(exact_norm_sq(built.model) == *lightest);
  BOOST_TEST((*lightest < *drawn));  // words-300: a smaller shift is lighter
  BOOST_REQUIRE(sizes_choice(built));
  BOOST_TEST(sizes_choice(built)->what.find(approx_decimal(*lightest, 4)) != std::string::npos);
  BOOST_TEST(certify_construction_hardmax(data, built, false).certificate.verified);
}

BOOST_AUTO_TEST_CASE(large_or_unshifted_datasets_keep_the_drawn_size) {
  RandomDatasetSpec spec;
  spec.d = 2, spec.N = 60, spec.n_max = 4, spec.coordinate_range = 3, spec.share_probability = 0.8;
  const Dataset shared = random_dataset(spec, 7);
  spec.share_probability = 0, spec.coordinate_range = 1000;
  const Dataset unshared = random_dataset(spec, 7);
  const ConstructionOptions leaders_only{false, false};
  const Construction a = build_interpolating_transformer(shared, 7, 1, leaders_only);
  BOOST_TEST(a.record.separation.shift_used);
  BOOST_TEST(sizes_choice(a) != nullptr);
  const Construction b = build_interpolating_transformer(unshared, 7, 1, leaders_only);
  BOOST_TEST(!b.record.separation.shift_used);
  BOOST_TEST(sizes_choice(b) == nullptr);
  BOOST_TEST(exact_norm_sq(b.model) == *norm_at(unshared, 7, 0));
  Construction empty;  // a size asked for without a shift names no size in any choice
  empty.model.dimension = unshared.dimension;
  empty.record.seed = 7;
  LeaderVariants alone(unshared, empty, 1, {12});
  alone.finish(Execution{});
  BOOST_TEST(exact_norm_sq(alone.built().model) == exact_norm_sq(b.model));
  for (const ChoiceLog& c : alone.built().record.choices) BOOST_TEST(c.what.find("v / 2^") == std::string::npos, c.what);
  spec.N = kShiftSizeTokenLimit / 4 + 1, spec.n_min = 4, spec.share_probability = 0.8, spec.coordinate_range = 3;
  const Dataset large = random_dataset(spec, 7);
  BOOST_REQUIRE(large.total_input_tokens() > kShiftSizeTokenLimit);
  const Construction c = build_interpolating_transformer(large, 7, 2, leaders_only);
  BOOST_TEST(sizes_choice(c) == nullptr);
  BOOST_TEST(exact_norm_sq(c.model) == *norm_at(large, 7, 0));
}

BOOST_AUTO_TEST_SUITE_END()
