// Compiles a LaTeX file to PDF with pdflatex, if it is installed.
#pragma once
#include <string>

namespace seqi {

// Runs pdflatex twice (-interaction=nonstopmode -halt-on-error, output directory = the tex
// file's directory, working directory the same so \input files are found) if it is on PATH.
// Returns "" on success, else a message: pdflatex missing, or the last lines of its log.
std::string compile_pdf(const std::string& tex_path);

}  // namespace seqi
