// A standalone LaTeX certificate of a verification run, kept in two files:
//   <stem>.tex       the layout (text, tables, figures); it \input's
//   <stem>-data.tex  every value of the run, each defined once as a macro (\certBlocks, ...).
// Values come from the Certificate, the RunInfo and the Dataset only; every user string is
// escaped. The document claims only what the certificate's checks establish.
#pragma once
#include <string>

#include "seqi/certification/certificate.hpp"
#include "seqi/io/dataset.hpp"
#include "seqi/report/summary.hpp"

namespace seqi {

// Text that typesets literally in LaTeX (pdflatex, OT1 or T1): escapes \ { } $ & # ^ _ % ~ < > |
// and [ ]; control characters become spaces or [0xNN]; each valid UTF-8 character outside
// ASCII becomes [U+XXXX] and each invalid byte [0xNN], so no input can break the document.
std::string latex_escape(const std::string& s);

// Writes tex_path (standalone certificate) and, next to it, <stem>-data.tex holding every
// value once as a macro, which the certificate \input's. `dataset_sha256` and `date` are
// passed in so the output is a function of the arguments only.
// Throws InputError when a file cannot be written.
void write_latex_certificate(const Certificate& cert, const RunInfo& run, const Dataset& data,
                             const std::string& dataset_sha256, const std::string& date, const std::string& tex_path);

// The companion <stem>-data.tex of the certificate tex_path (same directory). Throws
// InputError when tex_path does not end in .tex or its name cannot be \input by LaTeX.
std::string certificate_data_path(const std::string& tex_path);
// Runs pdflatex twice (-interaction=nonstopmode -halt-on-error, output directory = the tex
// file's directory, working directory the same so the data file is found) if it is on PATH.
// Returns "" on success, else a message: pdflatex missing, or the last lines of its log.
std::string compile_pdf(const std::string& tex_path);

}  // namespace seqi
