// A standalone LaTeX certificate of a verification run, kept in two files:
//   <stem>.tex       the layout (text, tables, figures: src/report/certificate_layout.tex); it \input's
//   <stem>-data.tex  every value of the run, each defined once as a macro (\certBlocks, ...).
// The document claims only what the certificate's checks establish.
#pragma once
#include <string>

#include "seqi/certification/run_report.hpp"
#include "seqi/core/dataset.hpp"
#include "seqi/report/latex_escape.hpp"
#include "seqi/report/pdflatex.hpp"
#include "seqi/report/summary.hpp"

namespace seqi {

// Writes tex_path (standalone certificate) and, next to it, <stem>-data.tex holding every
// value once as a macro, which the certificate \input's. `dataset_sha256` and `date` are
// passed in so the output is a function of the arguments only.
// Throws InputError when a file cannot be written.
void write_latex_certificate(const RunReport& report, const RunInfo& run, const Dataset& data,
                             const std::string& dataset_sha256, const std::string& date, const std::string& tex_path);

// The companion <stem>-data.tex of the certificate tex_path (same directory). Throws
// InputError when tex_path does not end in .tex or its name cannot be \input by LaTeX.
std::string certificate_data_path(const std::string& tex_path);

}  // namespace seqi
