#include "seqi/report/summary.hpp"

#include "seqi/report/conditioning_report.hpp"

#include <sstream>

#include "seqi/io/quote_value.hpp"
#include "seqi/report/general_summary.hpp"

#include "seqi/numbers/display.hpp"
#include "seqi/report/learning_class.hpp"

namespace seqi {

namespace {

std::string phases_text(const Counts& c) {
  std::string s;
  for (const char* p : {"separation", "placement", "interpolation", "user"}) {
    auto it = c.blocks_by_phase.find(p);
    if (it == c.blocks_by_phase.end()) continue;
    s += (s.empty() ? "" : ", ") + std::string(p) + " " + std::to_string(it->second);
  }
  return s;
}

// "float64:   shown ..." or "float32:   not shown ...": one format's statement (lem:float-run).
std::string float_statement_line(const FloatRunFacts& f) {
  if (!f.stated) return f.format + ":   " + f.failure + "\n";
  return f.format + ":   " +
         (f.certified ? "shown (lem:float-run): every decision of the " + f.format +
                            " run of the rounded weights equals the exact one; outputs within delta = " +
                            three_digits(f.delta) + " (relative " + three_digits(f.relative_delta) +
                            ") of the exact outputs"
                      : "not shown (lem:float-run): " + f.failure) +
         "\n";
}

// <format>_run_certified, _delta, _relative_delta, _failure, _tokens_bounded, _tokens_charged.
void add_float_statement_json(nlohmann::json& j, const FloatRunFacts& f) {
  const std::string p = f.format + "_run_";
  j[p + "stated"] = f.stated;
  j[p + "certified"] = f.certified;
  j[p + "delta"] = f.certified ? nlohmann::json(f.delta) : nlohmann::json(nullptr);
  j[p + "relative_delta"] = f.certified ? nlohmann::json(f.relative_delta) : nlohmann::json(nullptr);
  j[p + "failure"] = f.certified ? nlohmann::json(nullptr) : nlohmann::json(f.failure);
  j[p + "tokens_bounded"] = f.tokens_bounded;
  j[p + "tokens_charged"] = f.tokens_charged;
}

}  // namespace

std::string summary_text(const RunReport& report, const RunInfo& run) {
  const Certificate& cert = report.certificate;
  const Counts& c = cert.counts;
  std::ostringstream o;
  o << "dataset:   " << run.dataset_path << " (" << quote_value(run.dataset_name, 200) << ")\n";  // no escapes reach a terminal
  if (!run.model_path.empty()) o << "model:     " << run.model_path << "\n";
  o << "setting:   " << setting_name(cert.setting) << " attention, " << run.arithmetic << "\n";
  o << "data:      N = " << c.N << ", d = " << c.d << ", sum(m) = " << c.sum_m << "\n";
  o << "result:    " << (cert.verified ? "VERIFIED" : "NOT VERIFIED") << "\n";
  const std::size_t bound = cert.setting == Setting::softmax ? c.blocks_bound_softmax : c.blocks_bound_hardmax;
  o << "blocks:    " << c.blocks << " (" << phases_text(c) << ") against the theorem's "
    << (cert.setting == Setting::softmax ? "2 sum(m) + 3N = " : "2 sum(m) + 2N + 1 = ") << bound << "\n";
  if (c.blocks_bound_grouped && c.hinges)
    o << "           construction bound ceil((N + 1) / 4) = " << c.blocks_bound_grouped
      << " (mean collapse with hinges, lem:hinge-interpolation: four units per block)\n";
  else if (c.blocks_bound_grouped && c.mean_collapse)
    o << "           construction bound N + [offset] = " << c.blocks_bound_grouped
      << " (mean collapse, lem:mean-collapse: at most one run per sequence)\n";
  else if (c.blocks_bound_grouped)
    o << "           construction bound K + sum(m) + distinct targets + 2 = " << c.blocks_bound_grouped << " ("
      << c.distinct_targets << " distinct targets; lem:fewer-blocks-count)\n";
  o << "width:     " << c.width << " (at most 4)\n";
  o << "params:    " << c.params << " structured, " << c.params_dense << " with dense A, V; bound (20d+22) sum(m) = "
    << c.params_bound << "\n";
  o << "||theta||^2 = " << approx_decimal(c.param_norm_sq, 8) << " (exact value in --json)\n";
  if (cert.verified && cert.construction)
    o << "learning:  min of loss + eps ||theta||^2 <= eps ||theta||^2 above (lem:param-norm), over: "
      << learning_class(cert) << "\n";
  if (cert.construction) o << "seed:      " << run.seed << "\n";
  if (cert.softmax) {
    const SoftmaxFacts& f = *cert.softmax;
    if (cert.construction) {
      o << "tau*:      tau* >= min_j G_j / ln((n_j - 1) D_j / df) (lem:tau-star): ";
      if (f.tau_unbounded)
        o << "no sequence constrains tau; every tau > 0\n";
      else
        o << to_string(f.tau_star_lower) << " (~" << approx_decimal(f.tau_star_lower) << "), binding sequence "
          << f.binding_sequence + 1 << "; valid for every 0 < tau <= that bound\n";
    }
    o << "tau:       checked at " << to_string(f.tau_checked) << " (~" << approx_decimal(f.tau_checked) << "), "
      << f.precision << "-bit intervals\n";
    o << "enclosure: " << (cert.construction ? "max distance to the leader's value " : "max half-width ")
      << approx_decimal(f.max_enclosure_radius)
      << (cert.construction ? " against flat half-width " + approx_decimal(f.flat_halfwidth) : std::string())
      << (f.sequences_refined ? " (" + std::to_string(f.sequences_refined) +
                                                                         " sequences with per-token weights)" : "")
      << "\n";
  }
  if (cert.general) o << general_summary_text(*cert.general);
  // lem:float-run: claims beside the exact result, never part of it
  for (const auto* s : {&report.float_statement, &report.float32_statement})
    if (*s) o << float_statement_line(**s);
  o << conditioning_text(report.measurements);
  o << "checks:\n";
  for (const auto& ch : cert.checks)
    o << "  [" << (ch.passed ? "ok" : ch.required ? "FAIL" : "info") << "] " << ch.name << " (" << ch.lemma
      << "): " << ch.detail << "\n";
  if (cert.construction) {
    o << "generic choices (seeded, each checked exactly):\n";
    for (const auto& g : cert.construction->choices) {
      o << "  " << g.what;
      if (g.final_range != 0)  // 0: a choice made without drawing
        o << ": " << g.attempts << " draw" << (g.attempts > 1 ? "s" : "") << ", last from [-" << g.final_range.str()
          << ", " << g.final_range.str() << "]";
      o << "\n";
    }
  }
  return o.str();
}

nlohmann::json summary_json(const RunReport& report, const RunInfo& run) {
  const Certificate& cert = report.certificate;
  const Counts& c = cert.counts;
  nlohmann::json j;
  j["verified"] = cert.verified;
  j["setting"] = setting_name(cert.setting);
  j["dataset"] = run.dataset_path;
  j["name"] = run.dataset_name;
  if (!run.model_path.empty()) j["model"] = run.model_path;
  j["arithmetic"] = run.arithmetic;
  j["N"] = c.N;
  j["d"] = c.d;
  j["sum_m"] = c.sum_m;
  j["blocks"] = c.blocks;
  j["blocks_bound"] = cert.setting == Setting::softmax ? c.blocks_bound_softmax : c.blocks_bound_hardmax;
  j["blocks_bound_hardmax"] = c.blocks_bound_hardmax;
  j["blocks_bound_softmax"] = c.blocks_bound_softmax;
  j["blocks_by_phase"] = c.blocks_by_phase;
  if (c.blocks_bound_grouped) {
    j["distinct_targets"] = c.distinct_targets;
    j["blocks_bound_construction"] = c.blocks_bound_grouped;
    j["blocks_bound_construction_formula"] = c.hinges ? "ceil((N + 1) / 4)" : c.mean_collapse ? "N + offset_block" : "K + sum_m + distinct_targets + 2";
  }
  j["width"] = c.width;
  j["params"] = c.params;
  j["params_dense"] = c.params_dense;
  j["params_bound"] = c.params_bound;
  j["params_bound_formula"] = "(20d+22)*sum_m";
  j["param_norm_sq"] = to_string(c.param_norm_sq);
  j["learning_class"] = cert.verified && cert.construction ? nlohmann::json(learning_class(cert)) : nlohmann::json(nullptr);
  j["seed"] = cert.construction ? nlohmann::json(run.seed) : nlohmann::json(nullptr);
  j["max_coordinate_bits"] = cert.max_bits_by_phase;
  auto& checks = j["checks"] = nlohmann::json::array();
  for (const auto& ch : cert.checks)
    checks.push_back({{"name", ch.name}, {"lemma", ch.lemma}, {"passed", ch.passed}, {"required", ch.required},
                      {"detail", ch.detail}});
  auto& seqs = j["sequences"] = nlohmann::json::array();
  for (const auto& s : cert.sequences)
    seqs.push_back({{"n", s.n}, {"m", s.m}, {"matches", s.matches}, {"detail", s.detail}});
  if (cert.construction) {
    auto& ch = j["generic_choices"] = nlohmann::json::array();
    for (const auto& g : cert.construction->choices)
      ch.push_back({{"what", g.what}, {"attempts", g.attempts}, {"range", g.final_range.str()}});
    j["lifts"] = cert.construction->separation.lifts;
  }
  if (cert.softmax) {
    const SoftmaxFacts& f = *cert.softmax;
    j["tau_star_lower"] = f.tau_unbounded || !cert.construction ? nlohmann::json(nullptr) : nlohmann::json(to_string(f.tau_star_lower));
    j["tau_star_unbounded"] = f.tau_unbounded;
    j["tau_star_formula"] = "min_j G_j / ln((n_j - 1) D_j / df)";
    j["tau_binding_sequence"] = f.binding_sequence + 1;
    auto& per = j["tau_per_sequence"] = nlohmann::json::array();
    for (const auto& t : f.tau_per_sequence) per.push_back(t ? nlohmann::json(to_string(*t)) : nlohmann::json(nullptr));
    j["tau_checked"] = to_string(f.tau_checked);
    j["max_enclosure_radius"] = to_string(f.max_enclosure_radius);
    j["flat_halfwidth"] = to_string(f.flat_halfwidth);
    j["precision_bits"] = f.precision;
    j["sequences_refined"] = f.sequences_refined;
  }
  if (cert.general) j["general"] = general_summary_json(*cert.general);
  for (const auto* s : {&report.float_statement, &report.float32_statement})
    if (*s) add_float_statement_json(j, **s);
  j["conditioning"] = conditioning_json(report.measurements);
  j["forward_pass"] = {{"ff_sparse_layers", cert.stats.ff_sparse_layers},
                       {"ff_dense_layers", cert.stats.ff_dense_layers},
                       {"ff_tokens_evaluated", cert.stats.ff_tokens_evaluated},
                       {"attention_layers_skipped", cert.stats.attention_layers_skipped}};
  return j;
}

}  // namespace seqi
