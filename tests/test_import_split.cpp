// `verify import fashion-mnist --split train|test|all --count N|all`: several IDX sources read
// as one set, indices in source order, checked pixel by pixel against the IDX files read here.
#include <boost/test/unit_test.hpp>

#include "scratch_files.hpp"

#include <sys/wait.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include "seqi/io/idx.hpp"
#include "seqi/io/import_datasets.hpp"
#include "build_paths.hpp"

BOOST_AUTO_TEST_SUITE(test_import_split)

using namespace seqi;
namespace fs = std::filesystem;

namespace {

const fs::path& scratch() { return seqi::testing::scratch("seqi-import-split"); }

std::string be32(std::uint32_t v) {
  return {static_cast<char>(v >> 24), static_cast<char>(v >> 16), static_cast<char>(v >> 8), static_cast<char>(v)};
}

std::string idx_file(const std::string& name, const std::vector<std::uint32_t>& dims, const std::string& data) {
  std::string b{0, 0, 8, static_cast<char>(dims.size())};
  for (auto d : dims) b += be32(d);
  const auto path = scratch() / name;
  seqi::testing::write_file(path, b + data);
  return path.string();
}

// The image indices of the note "images (0-based indices into ...): i, j, ...".
std::vector<std::size_t> used_images(const Dataset& data) {
  const std::string& note = data.notes.back();
  BOOST_REQUIRE(note.rfind("images (0-based", 0) == 0);
  std::vector<std::size_t> v;
  for (std::size_t k = note.find("): ") + 3; k < note.size();) {
    std::size_t end = note.find(", ", k);
    if (end == std::string::npos) end = note.size();
    v.push_back(std::stoul(note.substr(k, end - k)));
    k = end + 2;
  }
  return v;
}

// Pair j's tokens are the 7 x 7 patches of `image` of `pixels` (28 x 28 bytes each): k/255.
void expect_image(const Dataset& data, std::size_t j, const IdxArray& pixels, std::size_t image) {
  const auto& in = data.pairs[j].input;
  BOOST_REQUIRE(in.size() == 16u);
  for (std::size_t q = 0; q < 16; ++q)
    for (std::size_t y = 0; y < 7; ++y)
      for (std::size_t x = 0; x < 7; ++x) {
        const std::size_t row = (q / 4) * 7 + y, col = (q % 4) * 7 + x;
        const int byte = pixels.data[image * 784 + row * 28 + col];
        BOOST_TEST(in[q][static_cast<Eigen::Index>(y * 7 + x)] == Rational(byte, 255));
      }
}

bool have_test_split() { return fs::exists(kFashionMnistTestImages) && fs::exists(kFashionMnistTestLabels); }

int run_import(const std::string& args) {
  const std::string cmd = std::string(SEQI_VERIFY_EXE) + " import fashion-mnist " + args + " >/dev/null 2>&1";
  const int status = std::system(cmd.c_str());
  BOOST_REQUIRE(status != -1 && WIFEXITED(status));
  return WEXITSTATUS(status);
}

}  // namespace

BOOST_AUTO_TEST_CASE(test_split_reads_the_test_files) {
  BOOST_REQUIRE_MESSAGE(have_test_split(), "install the Debian package dataset-fashion-mnist");
  const Dataset data = import_fashion_mnist({{kFashionMnistTestImages, kFashionMnistTestLabels}}, "test", 7, 6,
                                            "classify", 0, 5);
  BOOST_TEST(data.name == "fashion-mnist task=classify patch=7 count=6 split=test seed=5");
  BOOST_REQUIRE(data.pairs.size() == 6u);
  const IdxArray pixels = read_idx(kFashionMnistTestImages), labels = read_idx(kFashionMnistTestLabels);
  const auto used = used_images(data);
  BOOST_REQUIRE(used.size() == 6u);
  for (std::size_t j = 0; j < 6; ++j) {
    BOOST_TEST(used[j] < 10000u);
    expect_image(data, j, pixels, used[j]);
    BOOST_TEST(data.pairs[j].output[0][0] == Rational(labels.data[used[j]] + 1));
  }
}

BOOST_AUTO_TEST_CASE(all_split_indexes_train_then_test) {
  BOOST_REQUIRE_MESSAGE(have_test_split(), "install the Debian package dataset-fashion-mnist");
  const std::vector<IdxSource> both{{kFashionMnistTrainImages, kFashionMnistTrainLabels},
                                    {kFashionMnistTestImages, kFashionMnistTestLabels}};
  const Dataset data = import_fashion_mnist(both, "all", 7, 40, "classify", 0, 3);
  BOOST_TEST(data.name == "fashion-mnist task=classify patch=7 count=40 split=all seed=3");
  BOOST_REQUIRE(data.pairs.size() == 40u);
  const IdxArray train = read_idx(kFashionMnistTrainImages), test = read_idx(kFashionMnistTestImages);
  const IdxArray train_labels = read_idx(kFashionMnistTrainLabels), test_labels = read_idx(kFashionMnistTestLabels);
  const auto used = used_images(data);
  std::size_t from_test = 0;
  for (std::size_t j = 0; j < used.size(); ++j) {
    BOOST_REQUIRE(used[j] < 70000u);
    const bool in_test = used[j] >= 60000;
    from_test += in_test;
    const std::size_t k = in_test ? used[j] - 60000 : used[j];
    expect_image(data, j, in_test ? test : train, k);
    BOOST_TEST(data.pairs[j].output[0][0] == Rational((in_test ? test_labels : train_labels).data[k] + 1));
  }
  BOOST_TEST(from_test >= 1u);  // seed 3 draws test images too (the assertion fails if the split ignored them)
  // Inpaint over both splits draws the same images for the same seed.
  const Dataset inpaint = import_fashion_mnist({{kFashionMnistTrainImages, ""}, {kFashionMnistTestImages, ""}},
                                               "all", 7, 40, "inpaint", 2, 3);
  BOOST_TEST(used_images(inpaint) == used, boost::test_tools::per_element());
}

BOOST_AUTO_TEST_CASE(count_all_takes_every_distinct_image) {
  // Two sources of 2 x 2 images: 0 and 3 equal (same label: a repeat), 1 and 4 equal (other label: a conflict).
  const std::string a(4, '\x01'), b(4, '\x02'), c(4, '\x03');
  const auto img1 = idx_file("a-img.idx", {3, 2, 2}, a + b + c), lab1 = idx_file("a-lab.idx", {3}, {1, 2, 3});
  const auto img2 = idx_file("b-img.idx", {2, 2, 2}, a + b), lab2 = idx_file("b-lab.idx", {2}, {1, 5});
  const Dataset data = import_fashion_mnist({{img1, lab1}, {img2, lab2}}, "all", 1, kAllImages, "classify", 0, 9);
  BOOST_TEST(data.name == "fashion-mnist task=classify patch=1 count=all split=all seed=9");
  BOOST_TEST(data.pairs.size() == 3u);
  const auto used = used_images(data);
  // Which of two equal images comes first depends on the seeded order; one of each kind stays.
  BOOST_TEST(used.size() == 3u);
  const auto n = [&](std::size_t i) { return std::count(used.begin(), used.end(), i); };
  BOOST_TEST(n(0) + n(3) == 1);
  BOOST_TEST(n(1) + n(4) == 1);
  BOOST_TEST(n(2) == 1);
  bool skipped = false;
  for (const auto& n : data.notes) skipped |= n.find("skipped 1 repeated and 1 conflicting") != std::string::npos;
  BOOST_TEST(skipped);
  // Sizes must agree across sources.
  const auto big = idx_file("c-img.idx", {1, 4, 4}, std::string(16, '\x01')), big_lab = idx_file("c-lab.idx", {1}, {1});
  BOOST_CHECK_EXCEPTION(import_fashion_mnist({{img1, lab1}, {big, big_lab}}, "all", 1, 2, "classify", 0, 9), InputError,
                        [](const InputError& e) { return std::string(e.what()).find("the same image size") != std::string::npos; });
}

BOOST_AUTO_TEST_CASE(command_line_split_and_count_all) {
  const auto out = (scratch() / "cli.json").string();
  BOOST_TEST(run_import("--split test --count 3 --patch 7 --task classify -o " + out) == 0);
  BOOST_TEST(seqi::testing::read_file(out).find("split=test") != std::string::npos);
  BOOST_TEST(run_import("--split all --images x.idx --count 3 --patch 7 --task classify -o " + out) == 2);
  BOOST_TEST(run_import("--split none --count 3 --patch 7 --task classify -o " + out) == 2);
  BOOST_TEST(run_import("--count most --patch 7 --task classify -o " + out) == 2);
  const auto img = idx_file("d-img.idx", {2, 2, 2}, std::string(4, '\x01') + std::string(4, '\x02'));
  const auto lab = idx_file("d-lab.idx", {2}, {1, 2});
  BOOST_TEST(run_import("--images " + img + " --labels " + lab + " --count all --patch 1 --task classify -o " + out) == 0);
  BOOST_TEST(seqi::testing::read_file(out).find("count=all") != std::string::npos);
}

BOOST_AUTO_TEST_SUITE_END()
