// The paths of tests/build_paths.hpp, from this build's compile definitions.
#include "build_paths.hpp"

namespace seqi_test_paths {
const char* const datasets_dir = SEQI_TEST_DATASETS_DIR;
const char* const tests_dir = SEQI_TEST_TESTS_DIR;
const char* const source_root = SEQI_TEST_SOURCE_ROOT;
const char* const verify_exe = SEQI_TEST_VERIFY_EXE;
const char* const regression_exe = SEQI_TEST_REGRESSION_EXE;
}  // namespace seqi_test_paths
