// Test helpers shared by the subprocess suites: whole-file reading and writing, and a private
// scratch directory removed at exit. Include after <boost/test/unit_test.hpp>.
#pragma once
#include <stdlib.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>

namespace seqi::testing {

inline std::string read_file(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

inline void write_file(const std::filesystem::path& p, const std::string& text) {
  std::ofstream out(p, std::ios::binary);
  out << text;
  BOOST_REQUIRE_MESSAGE(out.good(), "cannot write " << p);
}

// A private scratch directory named after `prefix`, created on first use, removed at exit.
inline const std::filesystem::path& scratch(const char* prefix) {
  namespace fs = std::filesystem;
  static const fs::path dir = [prefix] {
    std::string tmpl = (fs::temp_directory_path() / (std::string(prefix) + "-XXXXXX")).string();
    BOOST_REQUIRE(mkdtemp(tmpl.data()) != nullptr);
    return fs::path(tmpl);
  }();
  static const struct Cleanup {
    ~Cleanup() {
      std::error_code ec;
      fs::remove_all(dir, ec);
    }
  } cleanup;
  return dir;
}

}  // namespace seqi::testing
