#include "seqi/report/latex.hpp"

#include <cstring>
#include <filesystem>

#include "seqi/core/input_error.hpp"
#include "seqi/io/atomic_write.hpp"
#include "seqi/report/certificate_data.hpp"
#include "seqi/report/certificate_layout.inc"  // kCertificateLayout: src/report/certificate_layout.tex

namespace seqi {

namespace {

namespace fs = std::filesystem;

// The layout resource with its \input of the data file.
std::string layout_text(const std::string& data_file_name) {
  std::string text(kCertificateLayout);
  const std::string data_file_marker = "SEQI-DATA-FILE";  // in the layout resource
  text.replace(text.find(data_file_marker), data_file_marker.size(), data_file_name);
  return text;
}

void write_file(const fs::path& path, const std::string& text) {
  write_file_atomically(path.string(), "certificate", [&](std::ostream& out) { out << text; });
}

}  // namespace

void write_latex_certificate(const RunReport& report, const RunInfo& run, const Dataset& data,
                             const std::string& dataset_sha256, const std::string& date, const std::string& tex_path) {
  const fs::path tex(tex_path);
  const fs::path data_path = certificate_data_path(tex_path);
  write_file(data_path, certificate_data_text(report, run, data, dataset_sha256, date));
  write_file(tex, layout_text(data_path.filename().string()));
}

std::string certificate_data_path(const std::string& tex_path) {
  const fs::path tex(tex_path);
  if (tex.extension() != ".tex")
    throw InputError(tex_path + ": the certificate file name must end in .tex");
  const std::string data_name = tex.stem().string() + "-data.tex";
  for (char c : data_name)
    if (std::strchr("%#{}\\ $&^~", c) || static_cast<unsigned char>(c) < 0x20)
      throw InputError(tex_path + ": choose a file name without spaces, control characters or any of "
                       "% # { } \\ $ & ^ ~ (LaTeX reads it in \\input)");
  return (tex.parent_path() / data_name).string();
}

}  // namespace seqi
