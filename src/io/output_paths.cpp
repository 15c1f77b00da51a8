#include "seqi/io/output_paths.hpp"

#include <filesystem>

#include "seqi/core/input_error.hpp"
#include "seqi/io/quote_value.hpp"

namespace seqi {
namespace {

// Paths are the user's own text: escaped, but quoted whole up to a generous length.
std::string shown(const std::string& path) { return quote_value(path, 4096); }

}  // namespace

bool same_file(const std::string& a, const std::string& b) {
  namespace fs = std::filesystem;
  std::error_code ec_a, ec_b;
  const fs::file_status sa = fs::status(a, ec_a), sb = fs::status(b, ec_b);
  if (fs::exists(sa) && fs::exists(sb)) {
    if (!fs::is_regular_file(sa) && !fs::is_regular_file(sb)) return false;
    std::error_code ec;
    return fs::equivalent(a, b, ec) && !ec;
  }
  std::error_code ec;
  const fs::path ca = fs::weakly_canonical(fs::absolute(a, ec), ec);
  if (ec) return a == b;
  const fs::path cb = fs::weakly_canonical(fs::absolute(b, ec), ec);
  if (ec) return a == b;
  return ca == cb;
}

void refuse_outputs_onto_inputs(const std::vector<NamedPath>& outputs, const std::vector<NamedPath>& inputs) {
  for (std::size_t k = 0; k < outputs.size(); ++k) {
    const NamedPath& out = outputs[k];
    for (const NamedPath& in : inputs)
      if (same_file(out.path, in.path))
        throw InputError(out.role + " " + shown(out.path) + " is " + in.role + " " + shown(in.path) +
                         ": writing it would destroy an input of this run. Choose another output path.");
    for (std::size_t l = 0; l < k; ++l)
      if (same_file(out.path, outputs[l].path))
        throw InputError(out.role + " " + shown(out.path) + " and " + outputs[l].role + " " +
                         shown(outputs[l].path) + " are the same file. Give each output its own path.");
  }
}

}  // namespace seqi
