// The CI gate on theorem constants: per dataset, what the engine must keep giving. Any bound
// exceeded, any dataset no longer verified, or any unexplained change fails the gate.
#pragma once
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "seqi/certification/run_report.hpp"

namespace seqi {

struct RegressionRecord {
  std::string dataset;
  bool verified_hardmax = false, verified_softmax = false;
  std::size_t N = 0, d = 0, sum_m = 0;
  std::size_t blocks = 0, blocks_bound_hardmax = 0, blocks_bound_softmax = 0;
  std::size_t width = 0, params = 0, params_bound = 0;
  std::string param_norm_sq_sha256;  // SHA-256 of the exact rational's text
  std::string tau_star_lower;        // exact rational, "unbounded", or "" when not certified
};

// The corpus file's datasets, named: its files (paths relative to the corpus file) by file name,
// then its seeded random datasets by their names.
std::vector<std::pair<std::string, Dataset>> load_corpus(const std::string& corpus_path);

RegressionRecord regression_record(const std::string& dataset, const Certificate& hardmax, const Certificate& softmax);

// Violations of the theorems' constants or of verification, each naming dataset and field.
std::vector<std::string> bound_violations(const RegressionRecord& r);

// Fields that differ from the golden record, each as "dataset: field: golden -> now".
std::vector<std::string> golden_differences(const RegressionRecord& golden, const RegressionRecord& now);

nlohmann::json to_json(const RegressionRecord& r);
RegressionRecord regression_record_from_json(const nlohmann::json& j);

}  // namespace seqi
