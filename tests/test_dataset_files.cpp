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
#include "build_paths.hpp"

BOOST_AUTO_TEST_SUITE(test_dataset_files)

namespace fs = std::filesystem;
using seqi::Dataset;
using seqi::InputError;
using seqi::Point;
using seqi::Rational;
using namespace seqi_test::dataset_io;

namespace {

struct TempDir {
  fs::path path;
  TempDir() {
    path = fs::temp_directory_path() / ("seqi-dataset-io-" + std::to_string(::getpid()));
    fs::create_directories(path);
  }
  ~TempDir() {
    std::error_code ec;
    fs::permissions(path, fs::perms::owner_all, fs::perm_options::add, ec);
    fs::remove_all(path, ec);
  }
  fs::path write(const std::string& name, const std::string& text) const {
    std::ofstream(path / name, std::ios::binary) << text;
    return path / name;
  }
};

template <class Seq>  // Sequence or TokenSequence
Rational mean_x(const Seq& s, Eigen::Index coord) {
  Rational sum = 0;
  for (const auto& p : s) sum += p[coord];
  return sum / static_cast<long>(s.size());
}

}  // namespace

// ---------------------------------------------------------------- files

BOOST_AUTO_TEST_CASE(file_errors) {
  TempDir tmp;
  const std::string missing = (tmp.path / "nope.json").string();
  BOOST_CHECK_EXCEPTION(seqi::read_dataset_file(missing), InputError, [&](const InputError& e) {
    return std::string(e.what()) == missing + ": the dataset file does not exist. Check the path (datasets are .json files).";
  });
  BOOST_CHECK_EXCEPTION(seqi::read_dataset_file(tmp.path.string()), InputError, [](const InputError& e) {
    return std::string(e.what()).find("is a directory, not a dataset file") != std::string::npos;
  });
  BOOST_CHECK_THROW(seqi::read_dataset_file(""), InputError);

  // Messages name the file.
  fs::path bad = tmp.write("bad.json", one_pair("[[0, null]]"));
  BOOST_CHECK_EXCEPTION(seqi::read_dataset_file(bad.string()), InputError, [&](const InputError& e) {
    return std::string(e.what()).rfind(bad.string() + ": pair 1, input token 1, coordinate 2 is null", 0) == 0;
  });

  // Larger than the limit: a sparse file, so nothing is written to disk.
  fs::path huge = tmp.write("huge.json", "");
  fs::resize_file(huge, seqi::kMaxDatasetFileBytes + 1);
  BOOST_CHECK_EXCEPTION(seqi::read_dataset_file(huge.string()), InputError, [](const InputError& e) {
    return std::string(e.what()).find("larger than the limit") != std::string::npos;
  });

  // Unreadable: only meaningful when not running as root.
  fs::path secret = tmp.write("secret.json", one_pair("[[0, 0]]"));
  fs::permissions(secret, fs::perms::none);
  if (::geteuid() != 0) {
    BOOST_CHECK_EXCEPTION(seqi::read_dataset_file(secret.string()), InputError, [](const InputError& e) {
      return std::string(e.what()).find("cannot open the dataset file") != std::string::npos;
    });
  }

  fs::path good = tmp.write("good-one.json", one_pair("[[0, 0]]"));
  Dataset d = seqi::read_dataset_file(good.string());
  BOOST_TEST(d.name == "good-one");
}

BOOST_AUTO_TEST_CASE(bad_input_files_fail_with_the_expected_message) {
  const fs::path dir = fs::path(SEQI_TESTS_DIR) / "bad-input";
  std::ifstream table(dir / "expected.tsv");
  BOOST_REQUIRE(table);
  std::string line;
  std::getline(table, line);
  BOOST_TEST(line == "file\texit_code\tmessage_fragment");
  std::set<std::string> listed;
  while (std::getline(table, line)) {
    if (line.empty()) continue;
    std::istringstream fields(line);
    std::string file, code, fragment;
    std::getline(fields, file, '\t');
    std::getline(fields, code, '\t');
    std::getline(fields, fragment);
    BOOST_TEST_CONTEXT("bad input " << file) {
      BOOST_TEST(code == "2");
      BOOST_TEST(!fragment.empty());
      listed.insert(file);
      const std::string path = (dir / file).string();
      const auto message_of = [&](unsigned threads) {
        try {
          seqi::read_dataset_file(path, threads);
        } catch (const InputError& e) {
          return std::string(e.what());
        }
        return std::string("<no error>");
      };
      const std::string message = message_of(1);
      BOOST_TEST(message_of(2) == message);  // both passes at once: the same error
      BOOST_TEST_INFO("message: " << message);
      BOOST_TEST(message.rfind(path + ": ", 0) == 0);
      BOOST_TEST_INFO("message: " << message);
      BOOST_TEST(message.find(fragment) != std::string::npos, "fragment: " << fragment);
    }
  }
  // Every bad-input file is listed.
  for (const auto& entry : fs::directory_iterator(dir))
    if (entry.path().extension() == ".json")
      BOOST_TEST(listed.count(entry.path().filename().string()) == 1u, entry.path().filename().string() << " is not in expected.tsv");
  BOOST_TEST(listed.size() >= 12u);
}

// ---------------------------------------------------------------- shipped datasets

BOOST_AUTO_TEST_CASE(every_shipped_dataset_parses) {
  std::size_t count = 0;
  for (const auto& entry : fs::directory_iterator(SEQI_DATASETS_DIR)) {
    if (entry.path().extension() != ".json") continue;
    ++count;
    BOOST_TEST_CONTEXT("dataset " << entry.path().filename().string()) {
      Dataset d;
      BOOST_CHECK_NO_THROW(d = seqi::read_dataset_file(entry.path().string()));
      BOOST_TEST(!d.name.empty());
      BOOST_TEST(d.name != entry.path().stem().string());  // each ships a descriptive name
      BOOST_TEST(d.notes.empty());  // no duplicate pairs in shipped data
      BOOST_TEST(d.dimension >= 2);
      // Both passes at once (threads >= 2): the same dataset, token for token.
      const Dataset twice = seqi::read_dataset_file(entry.path().string(), 2);
      BOOST_TEST(twice.name == d.name);
      BOOST_TEST(twice.dimension == d.dimension);
      BOOST_REQUIRE_EQUAL(twice.pairs.size(), d.pairs.size());
      for (std::size_t j = 0; j < d.pairs.size(); ++j) {
        BOOST_TEST(twice.pairs[j].input.points() == d.pairs[j].input.points());
        BOOST_TEST(twice.pairs[j].output.points() == d.pairs[j].output.points());
      }
    }
  }
  BOOST_TEST(count >= 10u);
}

BOOST_AUTO_TEST_CASE(shipped_datasets_have_the_advertised_shape) {
  auto load = [](const std::string& name) {
    return seqi::read_dataset_file((fs::path(SEQI_DATASETS_DIR) / name).string());
  };
  Dataset single = load("single.json");
  BOOST_TEST(single.pairs.size() == 1u);
  BOOST_TEST(single.pairs[0].input.size() == 1u);
  BOOST_TEST(single.pairs[0].output.size() == 1u);

  Dataset tiny = load("tiny-d2.json");
  BOOST_TEST(tiny.dimension == 2);
  BOOST_TEST(tiny.pairs.size() == 2u);

  // equal-means: all means equal, and some token is shared between sequences.
  Dataset em = load("equal-means.json");
  BOOST_TEST(em.pairs.size() >= 2u);
  for (const auto& p : em.pairs) {
    BOOST_TEST(mean_x(p.input, 0) == mean_x(em.pairs[0].input, 0));
    BOOST_TEST(mean_x(p.input, 1) == mean_x(em.pairs[0].input, 1));
  }
  bool shared = false;
  for (const auto& a : em.pairs[0].input)
    for (const auto& b : em.pairs[1].input) shared = shared || seqi::equal_points(a, b);
  BOOST_TEST(shared);

  // shared-tokens: some token occurs in two different sequences.
  Dataset st = load("shared-tokens.json");
  std::size_t sharing = 0;
  for (std::size_t j = 0; j < st.pairs.size(); ++j)
    for (std::size_t k = j + 1; k < st.pairs.size(); ++k)
      for (const auto& a : st.pairs[j].input)
        for (const auto& b : st.pairs[k].input) sharing += seqi::equal_points(a, b);
  BOOST_TEST(sharing >= 3u);

  // subset: input 1 is a strict subset of input 2.
  Dataset sub = load("subset.json");
  BOOST_TEST(sub.pairs[0].input.size() < sub.pairs[1].input.size());
  for (const auto& a : sub.pairs[0].input) {
    bool found = false;
    for (const auto& b : sub.pairs[1].input) found = found || seqi::equal_points(a, b);
    BOOST_TEST(found);
  }

  // collinear: every token is on the line through the first two input tokens.
  Dataset col = load("collinear.json");
  const Point o = col.pairs[0].input[0], dir = col.pairs[0].input[1] - o;
  const auto on_line = [&](const Point& x) { return (x[0] - o[0]) * dir[1] == (x[1] - o[1]) * dir[0]; };
  for (const auto& p : col.pairs) {
    for (const auto& x : p.input) BOOST_TEST(on_line(x));
    for (const auto& x : p.output) BOOST_TEST(on_line(x));
  }

  Dataset mn = load("m-equals-n.json");
  for (const auto& p : mn.pairs) BOOST_TEST(p.output.size() == p.input.size());

  // identity-targets: every target is one of its input tokens.
  Dataset id = load("identity-targets.json");
  for (const auto& p : id.pairs)
    for (const auto& y : p.output) {
      bool found = false;
      for (const auto& x : p.input) found = found || seqi::equal_points(x, y);
      BOOST_TEST(found);
    }

  // equal-targets: the same output set everywhere (order may differ).
  Dataset et = load("equal-targets.json");
  auto as_set = [](const seqi::TokenSequence& s) {
    std::set<std::string> out;
    for (const auto& p : s) out.insert(seqi::to_string(p));
    return out;
  };
  for (const auto& p : et.pairs) BOOST_TEST((as_set(p.output) == as_set(et.pairs[0].output)));

  Dataset mix = load("mixed-d3.json");
  BOOST_TEST(mix.dimension == 3);
  BOOST_TEST(mix.pairs.size() == 4u);
  BOOST_TEST(mix.pairs[0].input[0][0] == Rational(-3, 7));
  BOOST_TEST(mix.pairs[0].input[1][0] == Rational(1, 2));
  BOOST_TEST(mix.pairs[0].input[1][1] == Rational(1, 8));
  BOOST_TEST(mix.pairs[1].input[1][0] == Rational(1, 1000));
  BOOST_TEST(mix.pairs[2].input[2][0] == Rational(1, 10));
  BOOST_TEST(mix.pairs[3].output[0][2] == -100);
}

BOOST_AUTO_TEST_SUITE_END()
