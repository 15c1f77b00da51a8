// The data file of a LaTeX certificate: every value of the run, each defined once as a macro
// (\certBlocks, \certTauStar, ...), which the layout \input's. Values come from the
// RunReport, the RunInfo and the Dataset only; every user string is escaped.
#pragma once
#include <string>

#include "seqi/certification/run_report.hpp"
#include "seqi/core/dataset.hpp"
#include "seqi/report/summary.hpp"

namespace seqi {

// `dataset_sha256` and `date` are passed in so the text is a function of the arguments only.
std::string certificate_data_text(const RunReport& report, const RunInfo& run, const Dataset& data,
                                  const std::string& dataset_sha256, const std::string& date);

}  // namespace seqi
