// Where the tests find the source tree and the programs they run. The paths are compiled into
// one small file of this build (build_paths.cpp, in seqi_test_main) rather than into every test
// driver, so a change of build directory recompiles one file, not every driver. (A clone at
// another path still recompiles the drivers: Boost.Test records each case's __FILE__.)
#pragma once

namespace seqi_test_paths {
extern const char* const datasets_dir;    // datasets/
extern const char* const tests_dir;       // tests/
extern const char* const source_root;     // the source tree
extern const char* const verify_exe;      // the verify program of this build
extern const char* const regression_exe;  // seqi_regression of this build
}  // namespace seqi_test_paths

#define SEQI_DATASETS_DIR (::seqi_test_paths::datasets_dir)
#define SEQI_TESTS_DIR (::seqi_test_paths::tests_dir)
#define SEQI_SOURCE_ROOT (::seqi_test_paths::source_root)
#define SEQI_VERIFY_EXE (::seqi_test_paths::verify_exe)
#define SEQI_REGRESSION_EXE (::seqi_test_paths::regression_exe)
