#include "seqi/io/statement_metadata.hpp"

#include <cstdio>

namespace seqi {
namespace {

std::string decimal17(double x) {
  char buf[40];
  std::snprintf(buf, sizeof buf, "%.17g", x);
  return buf;
}

// "shown ..." or "not shown ...: why" or "not computed", with a note when `tensors` are of
// another format than the statement's.
std::string statement_text(const std::optional<double>& delta, const std::string& not_shown, const std::string& format,
                           const std::string& tensors) {
  std::string s = "not computed";
  if (delta)
    s = "shown (lem:float-run): a " + format + " run (weights and inputs rounded once to nearest " + format +
        ", operations rounded to nearest in any summation order, exp within 2 ulp) makes the exact run's "
        "decisions and every output coordinate lies within " + format + "_delta of the exact output";
  else if (!not_shown.empty())
    s = "not shown (lem:float-run): " + not_shown;
  if (tensors != format)
    s += "; it speaks of " + format + " weights rounded once from the exact model: these " + tensors +
         " tensors are outside it";
  return s;
}

}  // namespace

std::vector<std::pair<std::string, std::string>> statement_metadata(const ModelExportInfo& info,
                                                                    const std::string& tensors) {
  std::vector<std::pair<std::string, std::string>> m;
  m.emplace_back("exact_certificate",
                 info.certified ? "holds: the exact model maps every input X_j onto its target Y_j (as sets)"
                                : "does not hold: the exact model was not verified on the dataset");
  m.emplace_back("float64_statement", statement_text(info.float64_delta, info.float64_not_shown, "float64", tensors));
  if (info.float64_delta) m.emplace_back("float64_delta", decimal17(*info.float64_delta));
  m.emplace_back("float32_statement", statement_text(info.float32_delta, info.float32_not_shown, "float32", tensors));
  if (info.float32_delta) m.emplace_back("float32_delta", decimal17(*info.float32_delta));
  return m;
}

}  // namespace seqi
