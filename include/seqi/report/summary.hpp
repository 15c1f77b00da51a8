// The human-readable summary and the --json object of a verification run.
#pragma once
#include <cstdint>
#include <string>

#include <nlohmann/json.hpp>

#include "seqi/certification/run_report.hpp"

namespace seqi {

struct RunInfo {
  std::string dataset_path;
  std::string dataset_name;
  std::string model_path;  // empty: our construction
  std::uint64_t seed = 0;
  std::string arithmetic;  // e.g. "exact rationals (GMP)"
};

std::string summary_text(const RunReport& report, const RunInfo& run);
nlohmann::json summary_json(const RunReport& report, const RunInfo& run);

}  // namespace seqi
