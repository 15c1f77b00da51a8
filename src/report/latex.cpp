#include "seqi/report/latex.hpp"

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>

#include "seqi/core/input_error.hpp"
#include "seqi/report/certificate_data.hpp"
#include "seqi/report/certificate_layout.inc"  // kCertificateLayout: src/report/certificate_layout.tex

namespace seqi {

namespace {

namespace fs = std::filesystem;

// The layout resource with its \input of the data file.
std::string layout_text(const std::string& data_file_name) {
  std::string text(kCertificateLayout);
  const std::string placeholder = "SEQI-DATA-FILE";
  text.replace(text.find(placeholder), placeholder.size(), data_file_name);
  return text;
}

void write_file(const fs::path& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  if (!out) throw InputError(path.string() + ": cannot write the certificate (" + std::strerror(errno) + ")");
  out << text;
  out.close();
  if (!out) throw InputError(path.string() + ": write error while writing the certificate");
}

}  // namespace

void write_latex_certificate(const Certificate& cert, const RunInfo& run, const Dataset& data,
                             const std::string& dataset_sha256, const std::string& date, const std::string& tex_path) {
  const fs::path tex(tex_path);
  if (tex.extension() != ".tex")
    throw InputError(tex_path + ": the certificate file name must end in .tex");
  const std::string data_name = tex.stem().string() + "-data.tex";
  for (char c : data_name)
    if (std::strchr("%#{}\\ $&^~", c))
      throw InputError(tex_path + ": choose a file name without spaces or any of % # { } \\ $ & ^ ~ "
                       "(LaTeX reads it in \\input)");
  write_file(tex.parent_path() / data_name, certificate_data_text(cert, run, data, dataset_sha256, date));
  write_file(tex, layout_text(data_name));
}

}  // namespace seqi
