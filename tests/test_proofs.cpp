#include <boost/test/unit_test.hpp>

#include <filesystem>
#include <fstream>
#include <regex>
#include <set>
#include <sstream>
#include <unistd.h>

#include "build_paths.hpp"
#include "seqi/report/pdflatex.hpp"

BOOST_AUTO_TEST_SUITE(test_proofs)

namespace fs = std::filesystem;

namespace {

std::string slurp(const fs::path& p) {
  std::ifstream in(p);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// Labels of every .tex file in proofs/ (construction.tex \\inputs the others).
std::set<std::string> labels_defined() {
  std::set<std::string> out;
  const std::regex label(R"(\\label\{([a-z]+:[A-Za-z0-9-]+)\})");
  for (const auto& entry : fs::directory_iterator(fs::path(SEQI_SOURCE_ROOT) / "proofs")) {
    if (entry.path().extension() != ".tex") continue;
    const std::string tex = slurp(entry.path());
    for (auto it = std::sregex_iterator(tex.begin(), tex.end(), label); it != std::sregex_iterator(); ++it)
      out.insert((*it)[1]);
  }
  return out;
}

}  // namespace

// Every lemma a check cites in the code ("lem:...", "def:...", "thm:...") exists in proofs/.
BOOST_AUTO_TEST_CASE(every_cited_label_exists_in_the_proofs) {
  const auto defined = labels_defined();
  BOOST_TEST(defined.count("lem:P") == 1u);
  const std::regex cited(R"re("((?:lem|def|thm):[A-Za-z0-9-]+)")re");
  std::size_t citations = 0;
  for (const auto& entry : fs::recursive_directory_iterator(fs::path(SEQI_SOURCE_ROOT) / "src")) {
    if (entry.path().extension() != ".cpp") continue;
    const std::string code = slurp(entry.path());
    for (auto it = std::sregex_iterator(code.begin(), code.end(), cited); it != std::sregex_iterator(); ++it) {
      ++citations;
      BOOST_TEST(defined.count((*it)[1]) == 1u, entry.path().filename() << " cites " << (*it)[1]);
    }
  }
  BOOST_TEST(citations >= 10u);
}

// proofs/construction.tex compiles with pdflatex (twice, for references) without undefined references.
// A fresh directory per run: a stale or truncated .aux of an earlier run must not decide the result.
BOOST_AUTO_TEST_CASE(the_proofs_compile) {
  const auto dir = fs::temp_directory_path() / ("seqi-proofs-" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  for (const auto& entry : fs::directory_iterator(fs::path(SEQI_SOURCE_ROOT) / "proofs"))
    if (entry.path().extension() == ".tex")
      fs::copy_file(entry.path(), dir / entry.path().filename());
  const std::string error = seqi::compile_pdf((dir / "construction.tex").string());
  BOOST_TEST(error.empty(), error);
  BOOST_TEST(fs::exists(dir / "construction.pdf"));
  const std::string log = slurp(dir / "construction.log");
  BOOST_TEST(log.find("undefined") == std::string::npos);
  if (error.empty()) fs::remove_all(dir);
}

BOOST_AUTO_TEST_SUITE_END()
