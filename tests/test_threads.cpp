// Per-sequence work on several threads (seqi/core/parallel.hpp, verify --threads): every index
// once, the sequential loop's exception, and certificates identical for any thread count.
#include <boost/test/unit_test.hpp>

#include <unistd.h>

#include <atomic>
#include <filesystem>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "seqi/certification/run_report.hpp"
#include "seqi/cli/run.hpp"
#include "seqi/core/parallel.hpp"
#include "seqi/construction/construction.hpp"
#include "seqi/io/dataset_writer.hpp"
#include "seqi/io/model_json.hpp"
#include "seqi/model/token_state.hpp"
#include "seqi/io/random_dataset.hpp"
#include "seqi/report/summary.hpp"
#include "build_paths.hpp"

BOOST_AUTO_TEST_SUITE(test_threads)

using namespace seqi;
namespace fs = std::filesystem;

namespace {

std::string verify_json(const std::string& path, bool softmax, unsigned threads, int* code = nullptr) {
  VerifyOptions opt;
  opt.dataset_path = path;
  opt.softmax = softmax;
  opt.json = true;
  opt.threads = threads;
  std::ostringstream out, err;
  const int c = run_verify(opt, out, err);
  if (code) *code = c;
  BOOST_TEST(err.str().empty(), path << ": " << err.str());
  return out.str();
}

}  // namespace

BOOST_AUTO_TEST_CASE(every_index_once_for_any_thread_count) {
  for (unsigned threads : {0u, 1u, 2u, 3u, 7u})
    for (std::size_t n : {0u, 1u, 2u, 5u, 64u}) {
      std::vector<std::atomic<int>> seen(n);
      for_each_index(n, threads, [&](std::size_t j) { ++seen[j]; });
      for (std::size_t j = 0; j < n; ++j) BOOST_TEST(seen[j].load() == 1, "threads " << threads << " n " << n);
    }
}

BOOST_AUTO_TEST_CASE(the_exception_of_the_smallest_index_is_rethrown) {
  for (unsigned threads : {1u, 2u, 4u}) {
    std::vector<std::atomic<int>> seen(100);
    std::string caught;
    try {
      for_each_index(100, threads, [&](std::size_t j) {
        ++seen[j];
        if (j == 7 || j == 8 || j == 60) throw std::runtime_error("index " + std::to_string(j));
      });
    } catch (const std::runtime_error& e) {
      caught = e.what();
    }
    BOOST_TEST(caught == "index 7", "threads " << threads);
    for (std::size_t j = 0; j <= 7; ++j) BOOST_TEST(seen[j].load() == 1);  // every index up to it ran
  }
}

BOOST_AUTO_TEST_CASE(shipped_datasets_certify_identically_on_1_and_3_threads) {
  std::size_t compared = 0;
  for (const auto& e : fs::directory_iterator(SEQI_DATASETS_DIR)) {
    if (e.path().extension() != ".json") continue;
    for (bool softmax : {false, true}) {
      int c1 = -1, c3 = -1;
      const std::string one = verify_json(e.path().string(), softmax, 1, &c1);
      const std::string three = verify_json(e.path().string(), softmax, 3, &c3);
      BOOST_TEST(c1 == c3, e.path());
      BOOST_TEST(one == three, e.path() << (softmax ? " softmax" : " hardmax"));
      BOOST_TEST(one.find("\"verified\"") != std::string::npos);
      ++compared;
    }
  }
  BOOST_TEST(compared >= 10u);
}

BOOST_AUTO_TEST_CASE(random_datasets_certify_identically_on_1_2_and_5_threads) {
  const std::uint64_t seed = 20261130;
  BOOST_TEST_MESSAGE("seed " << seed);
  const auto dir = fs::temp_directory_path() / ("seqi-threads-" + std::to_string(::getpid()));
  fs::create_directories(dir);
  for (std::uint64_t k = 0; k < 4; ++k) {
    RandomDatasetSpec spec;
    spec.N = 40;
    spec.n_max = 12;
    spec.m_max = 3;
    spec.d = 3;
    spec.max_denominator = 4;
    spec.share_probability = k % 2 ? 0.3 : 0.0;
    const auto path = (dir / ("r" + std::to_string(k) + ".json")).string();
    write_dataset_json(random_dataset(spec, seed + k), path);
    for (bool softmax : {false, true}) {
      const std::string one = verify_json(path, softmax, 1);
      BOOST_TEST(one.find("\"verified\": true") != std::string::npos, path << one.substr(0, 400));
      for (unsigned threads : {2u, 5u}) BOOST_TEST(verify_json(path, softmax, threads) == one, path << " " << threads);
    }
  }
  fs::remove_all(dir);
}

// The construction's threaded steps (inputs_of, placement readings and hats, the shrink, unit
// balancing) give the same model and record, exactly, on any thread count.
BOOST_AUTO_TEST_CASE(constructions_are_identical_on_1_2_and_5_threads) {
  const std::uint64_t seed = 20261201;
  BOOST_TEST_MESSAGE("seed " << seed);
  for (std::uint64_t k = 0; k < 6; ++k) {
    RandomDatasetSpec spec;
    spec.N = 30 + 10 * k;
    spec.n_max = 10;
    spec.m_max = k % 3 + 1;
    spec.d = 2 + k % 3;
    spec.max_denominator = 6;
    spec.share_probability = k % 2 ? 0.3 : 0.0;
    const Dataset data = random_dataset(spec, seed + k);
    const Construction one = build_interpolating_transformer(data, seed + k, 1, {false});
    const std::string model = model_to_json(one.model).dump();
    BOOST_TEST(one.model.blocks.size() > data.pairs.size());
    const TokenState in1 = inputs_of(data, 1);
    for (unsigned threads : {2u, 5u}) {
      const Construction other = build_interpolating_transformer(data, seed + k, threads, {false});
      BOOST_TEST(model_to_json(other.model).dump() == model, "dataset " << k << ", " << threads << " threads");
      BOOST_TEST(other.record.placement.leaders == one.record.placement.leaders);
      BOOST_TEST(equal_points(other.record.placement.reading, one.record.placement.reading));
      const TokenState in = inputs_of(data, threads);
      BOOST_TEST(in.begin == in1.begin);
      BOOST_REQUIRE(in.tokens.size() == in1.tokens.size());
      for (std::size_t i = 0; i < in.tokens.size(); ++i) BOOST_TEST(equal_points(in.tokens[i], in1.tokens[i]));
    }
  }
}

BOOST_AUTO_TEST_SUITE_END()
