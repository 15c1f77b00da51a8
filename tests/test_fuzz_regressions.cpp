#include <boost/test/unit_test.hpp>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "seqi/io/dataset_json.hpp"
#include "seqi/io/exact_json.hpp"
#include "seqi/io/model_json.hpp"
#include "build_paths.hpp"

BOOST_AUTO_TEST_SUITE(test_fuzz_regressions)

// Every input the fuzzer ever found (tests/fuzz-regressions/) must give a result or an
// InputError: any other exception, a crash or a sanitizer report fails this test.
BOOST_AUTO_TEST_CASE(fuzz_findings_are_clean_input_errors) {
  namespace fs = std::filesystem;
  std::size_t files = 0;
  for (const auto& entry : fs::directory_iterator(std::string(SEQI_TESTS_DIR) + "/fuzz-regressions")) {
    std::ifstream in(entry.path(), std::ios::binary);
    std::stringstream s;
    s << in.rdbuf();
    const std::string text = s.str();
    BOOST_TEST_CONTEXT(entry.path().filename()) {
      try {
        seqi::parse_dataset_json(text, entry.path().string());
      } catch (const seqi::InputError& e) {
        BOOST_TEST(std::string(e.what()).find(entry.path().string()) == 0);  // names the file
      }
      try {
        seqi::model_from_json(seqi::parse_exact_json(text, entry.path().string()), entry.path().string());
      } catch (const seqi::InputError& e) {
        BOOST_TEST(std::string(e.what()).find(entry.path().string()) == 0);
      }
    }
    ++files;
  }
  BOOST_TEST(files >= 1u);
}

BOOST_AUTO_TEST_SUITE_END()
