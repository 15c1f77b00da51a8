#include "seqi/report/general_summary.hpp"

#include <map>
#include <sstream>

namespace seqi {
namespace {

std::string yes_no(bool b) { return b ? "yes" : "no"; }

std::string class_line(const GeneralFacts& f) {
  return "width " + std::to_string(f.width) + " <= 4: " + yes_no(f.width_in_class) + "; ranks of A, V (" +
         std::to_string(f.rank_A) + ", " + std::to_string(f.rank_V) + ") <= 1: " + yes_no(f.rank_in_class);
}

}  // namespace

std::string general_summary_text(const GeneralFacts& f) {
  std::ostringstream o;
  o << "tolerance: " << (f.tolerance == 0 ? "0 (exact interpolation)" : to_string(f.tolerance))
    << " (Hausdorff distance of each output set to its target set; lem:general-verdict)\n";
  std::map<std::string, std::size_t> tally;
  for (const auto& s : f.sequences) ++tally[s.verdict];
  o << "verdicts: ";
  bool first = true;
  for (const auto& [verdict, count] : tally) o << (first ? "" : ", ") << count << " " << verdict, first = false;
  o << "\n";
  o << "loss:      mean over sequences of max_o min_y |o - y|^2 in [" << approx_decimal(f.loss_lo, 8) << ", "
    << approx_decimal(f.loss_hi, 8) << "] (exact endpoints in --json)\n";
  if (f.attention == "softmax")
    o << "refinement: " << f.sequences_refined << " of " << f.sequences.size()
      << " sequences needed more than one pass, budget exhausted on " << f.budget_exhausted << " (budget: "
      << f.precision << " bits doubled up to " << f.refinements << " times, " << f.branch_limit
      << " ReLUs branched per token and layer, " << f.bisections << " bisections per sequence; bisected: "
      << f.sequences_bisected << ")\n";
  std::size_t shown = 0;
  for (std::size_t j = 0; j < f.sequences.size() && shown < 5; ++j) {
    const auto& s = f.sequences[j];
    if (s.verdict == "exact" || s.verdict == "within delta") continue;
    o << "  sequence " << j + 1 << ": " << s.verdict << (s.detail.empty() ? "" : ": " + s.detail) << "\n";
    ++shown;
  }
  o << "theorem's class (information only, not part of the verdict): " << class_line(f) << "\n";
  return o.str();
}

nlohmann::json general_summary_json(const GeneralFacts& f) {
  nlohmann::json j;
  j["attention"] = f.attention;
  j["tolerance"] = to_string(f.tolerance);
  j["loss_definition"] = "mean over sequences of max over output tokens of the squared distance to the nearest target";
  j["loss"] = {to_string(f.loss_lo), to_string(f.loss_hi)};
  j["sequences_refined"] = f.sequences_refined;
  j["budget_exhausted"] = f.budget_exhausted;
  j["sequences_bisected"] = f.sequences_bisected;
  if (f.tau) j["tau"] = to_string(*f.tau);
  if (f.attention == "softmax")  // hardmax runs exactly: no budget
    j["budget"] = {{"precision_bits", f.precision}, {"refinements", f.refinements}, {"branch_limit", f.branch_limit},
                   {"bisections", f.bisections}};
  j["theorem_class_information_only"] = {{"width", f.width},         {"width_at_most_4", f.width_in_class},
                                         {"rank_A", f.rank_A},       {"rank_V", f.rank_V},
                                         {"ranks_at_most_1", f.rank_in_class}};
  auto& seqs = j["sequences"] = nlohmann::json::array();
  for (const auto& s : f.sequences)
    seqs.push_back({{"verdict", s.verdict},
                    {"hausdorff_sq", {to_string(s.hausdorff_sq_lo), to_string(s.hausdorff_sq_hi)}},
                    {"loss_term", {to_string(s.loss_lo), to_string(s.loss_hi)}},
                    {"detail", s.detail},
                    {"precision_bits", s.precision},
                    {"passes", s.passes},
                    {"branched_relus", s.branched_units},
                    {"interval_relus", s.interval_units},
                    {"bisection_cells", s.bisection_cells}});
  return j;
}

}  // namespace seqi
