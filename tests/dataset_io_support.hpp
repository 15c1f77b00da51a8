// Helpers shared by the dataset reader suites (test_dataset_io, test_dataset_files).
#pragma once
#include <string>

namespace seqi_test::dataset_io {

// A dataset with one pair whose input is `input_tokens` (JSON text) and output [[9, 9]].
inline std::string one_pair(const std::string& input_tokens, const std::string& output_tokens = "[[9, 9]]") {
  return R"({"dimension": 2, "pairs": [{"input": )" + input_tokens + R"(, "output": )" +
         output_tokens + "}]}";
}

}  // namespace seqi_test::dataset_io
