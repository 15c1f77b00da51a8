#include "seqi/report/conditioning_report.hpp"

#include <cstdio>
#include <sstream>

#include "seqi/numbers/display.hpp"

namespace seqi {
namespace {

std::string margin(const std::optional<Rational>& m) { return m ? approx_decimal(*m, 3) : std::string("n/a"); }

nlohmann::json exact_or_null(const std::optional<Rational>& m) {
  return m ? nlohmann::json(to_string(*m)) : nlohmann::json(nullptr);
}

std::string run_text(const ReplayOutcome& r) {
  return r.scalar + " " + r.rule + ": max relative Hausdorff distance " + three_digits(r.max_relative_hausdorff) + ", " +
         std::to_string(r.sequences_off_target) + " of " + std::to_string(r.sequences_checked) +
         " sequences above " + three_digits(r.tolerance) + ", " + std::to_string(r.wrong_leader) + " wrong-leader tokens, " +
         std::to_string(r.nonfinite) + " non-finite outputs" +
         (r.sample_seed ? " (work budget: a seeded spread of " + std::to_string(r.sequences_checked) + " of " +
                              std::to_string(r.sequences) + " sequences, seed " + std::to_string(*r.sample_seed) + ")"
                        : "");
}

}  // namespace

std::string conditioning_text(const ConditioningReport& rep) {
  std::ostringstream o;
  o << "conditioning (proofs/conditioning.tex; exact margins shown as decimals):\n";
  o << "  ||theta||^2 = " << approx_decimal(rep.norm_sq, 4) << ", max |weight| = " << approx_decimal(rep.max_abs_weight, 4)
    << "\n";
  for (const auto& p : rep.phases)
    o << "  " << p.phase << ": ||.||^2 " << approx_decimal(p.norm_sq, 4) << ", max |weight| "
      << approx_decimal(p.max_abs_weight, 4) << ", smallest relative window " << margin(p.relative_window) << "\n";
  o << "  Lemma P gap / score size " << margin(rep.lemma_p_relative) << ", collapse gap / max|z| "
    << margin(rep.collapse_relative) << ", flat-hat ramp / reading span " << margin(rep.flat_window_relative) << "\n";
  for (const auto& r : rep.float_runs) o << "  " << run_text(r) << " (measurement, not part of the proof)\n";
  return o.str();
}

nlohmann::json conditioning_json(const ConditioningReport& rep) {
  nlohmann::json j;
  j["norm_sq"] = to_string(rep.norm_sq);
  j["max_abs_weight"] = to_string(rep.max_abs_weight);
  auto& phases = j["phases"] = nlohmann::json::array();
  for (const auto& p : rep.phases)
    phases.push_back({{"phase", p.phase},
                      {"norm_sq", to_string(p.norm_sq)},
                      {"max_abs_weight", to_string(p.max_abs_weight)},
                      {"relative_window", exact_or_null(p.relative_window)}});
  j["lemma_p_relative"] = exact_or_null(rep.lemma_p_relative);
  j["collapse_relative"] = exact_or_null(rep.collapse_relative);
  j["flat_window_relative"] = exact_or_null(rep.flat_window_relative);
  auto& runs = j["float_runs"] = nlohmann::json::array();
  for (const auto& r : rep.float_runs)
    runs.push_back({{"scalar", r.scalar},
                    {"rule", r.rule},
                    {"tolerance", r.tolerance},
                    {"max_relative_hausdorff", r.max_relative_hausdorff},
                    {"sequences_off_target", r.sequences_off_target},
                    {"wrong_leader_tokens", r.wrong_leader},
                    {"nonfinite_outputs", r.nonfinite},
                    {"sequences_checked", r.sequences_checked},
                    {"sequences", r.sequences},
                    {"sample_seed", r.sample_seed ? nlohmann::json(*r.sample_seed) : nlohmann::json(nullptr)},
                    {"part_of_proof", false}});
  return j;
}

std::string conditioning_latex(const ConditioningReport& rep) {
  std::ostringstream o;
  o << "$\\|\\hat\\theta\\|^2\\approx{}$" << approx_decimal(rep.norm_sq, 4) << ", largest $|$weight$|\\approx{}$"
    << approx_decimal(rep.max_abs_weight, 4) << ".\n\n\\begin{tabular}{lrrr}\nphase & $\\|\\cdot\\|^2$ & max $|$weight$|$ & "
    << "smallest relative window\\\\\\hline\n";
  for (const auto& p : rep.phases)
    o << p.phase << " & " << approx_decimal(p.norm_sq, 4) << " & " << approx_decimal(p.max_abs_weight, 4) << " & "
      << margin(p.relative_window) << "\\\\\n";
  o << "\\end{tabular}\n\n";
  o << "Lemma P gap against score size " << margin(rep.lemma_p_relative) << "; collapse gap against $\\max|z|$ "
    << margin(rep.collapse_relative) << "; flat-hat ramp against the reading span " << margin(rep.flat_window_relative)
    << " (exact rationals, shown as decimals).\n\n";
  if (!rep.float_runs.empty()) {
    o << "\\textbf{Not a certificate, not part of the proof:} the same transformer in plain floating point, every sequence:\n"
      << "\\begin{itemize}\n";
    for (const auto& r : rep.float_runs) o << "\\item " << run_text(r) << ".\n";
    o << "\\end{itemize}\n";
  }
  return o.str();
}

}  // namespace seqi
