#include "seqi/report/certificate_data.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <map>
#include <sstream>

#include "seqi/report/conditioning_report.hpp"
#include "seqi/report/latex_escape.hpp"
#include "seqi/report/learning_class.hpp"

namespace seqi {

namespace {

// Per-sequence table: beyond kFullTableLimit sequences, show the first kTableHead ones and the
// failing ones (at most kFailingShown of those, the count of the rest is stated).
constexpr std::size_t kFullTableLimit = 200;
constexpr std::size_t kTableHead = 50;
constexpr std::size_t kFailingShown = 500;

std::string num(std::size_t n) { return std::to_string(n); }

// Display of a double (never a decision): "%.6g", or "non-finite".
std::string fmt_double(double x, const char* fmt = "%.6g") {
  if (!std::isfinite(x)) return "non-finite";
  char buf[64];
  std::snprintf(buf, sizeof buf, fmt, x);
  return buf;
}

std::string rel(bool within) { return within ? "\\le" : ">"; }

std::size_t phase_blocks(const Counts& c, const char* phase) {
  auto it = c.blocks_by_phase.find(phase);
  return it == c.blocks_by_phase.end() ? 0 : it->second;
}

class DataFile {
 public:
  void comment(const std::string& text) { o_ << "% " << text << "\n"; }
  void def(const std::string& name, const std::string& value) {
    o_ << "\\newcommand{\\" << name << "}{" << value << "}\n";
  }
  void flag(const std::string& name, bool on) { o_ << "\\" << name << (on ? "true" : "false") << "\n"; }
  void blank() { o_ << "\n"; }
  std::string str() const { return o_.str(); }

 private:
  std::ostringstream o_;
};

// Axis limits of a snapshot: the data range with a margin, widened when (nearly) degenerate
// so that pgfplots never sees an empty or numerically tiny range.
struct Range {
  double lo = 0, hi = 0;
};

Range padded(double lo, double hi) {
  const double centre = lo / 2 + hi / 2;
  double half = hi / 2 - lo / 2;
  const double floor_half = std::max(1e-3 * std::max(std::fabs(lo), std::fabs(hi)), 1e-12);
  half = std::max(half * 1.15, floor_half);
  return {centre - half, centre + half};
}

std::string snapshot_macro(const PhaseSnapshot& snap) {
  double xlo = std::numeric_limits<double>::infinity(), xhi = -xlo, ylo = xlo, yhi = -xlo;
  std::string seqs;
  std::size_t index = 0;
  for (const auto& seq : snap.sequences) {
    ++index;
    std::string coords;
    for (const auto& [x, y] : seq) {
      if (!std::isfinite(x) || !std::isfinite(y) || std::fabs(x) > 1e300 || std::fabs(y) > 1e300) continue;
      xlo = std::min(xlo, x), xhi = std::max(xhi, x), ylo = std::min(ylo, y), yhi = std::max(yhi, y);
      coords += "(" + fmt_double(x, "%.9g") + "," + fmt_double(y, "%.9g") + ") ";
    }
    if (!coords.empty()) seqs += "\\certSnapshotSequence{" + num(index) + "}{" + coords + "}%\n  ";
  }
  if (seqs.empty()) return "";
  const Range xr = padded(xlo, xhi), yr = padded(ylo, yhi);
  return "\\certSnapshot{" + latex_escape(snap.phase) + "}{" + fmt_double(xr.lo, "%.9g") + "}{" +
         fmt_double(xr.hi, "%.9g") + "}{" + fmt_double(yr.lo, "%.9g") + "}{" + fmt_double(yr.hi, "%.9g") + "}{%\n  " +
         seqs + "}%\n";
}

std::string check_status(const Check& c) {
  if (c.passed) return "passed";
  return c.required ? "FAILED" : "failed (not required)";
}

}  // namespace

// A given model (lem:general-verdict): the tolerance of the claim, the verdicts, the loss
// enclosure, the refinement budget and the theorem's class (information only). The learning
// corollary in its exact form needs every sequence exact (lem:param-norm); within a tolerance
// it holds with the certified loss bound (lem:param-norm-tolerance).
void define_given_model_facts(DataFile& f, const Certificate& cert) {
  f.comment("Given model (lem:general-verdict, lem:param-norm-tolerance)");
  const GeneralFacts* g = cert.general ? &*cert.general : nullptr;
  bool all_exact = true;
  std::map<std::string, std::size_t> tally;
  if (g)
    for (const auto& s : g->sequences) ++tally[s.verdict], all_exact = all_exact && s.verdict == "exact";
  std::string verdicts;
  for (const auto& [verdict, count] : tally) verdicts += (verdicts.empty() ? "" : ", ") + num(count) + " " + verdict;
  f.flag("certGeneral", g != nullptr);
  f.flag("certWithinTolerance", g && g->tolerance > 0);
  f.flag("certExactInterpolation", cert.verified && all_exact);
  const std::string na = "not applicable";
  f.def("certTolerance", g ? to_string(g->tolerance) : na);
  f.def("certToleranceDecimal", g ? approx_decimal(g->tolerance) : na);
  f.def("certVerdictTally", latex_escape(verdicts.empty() ? na : verdicts));
  f.def("certLossLo", g ? to_string(g->loss_lo) : na);
  f.def("certLossHi", g ? to_string(g->loss_hi) : na);
  f.def("certLossLoDecimal", g ? approx_decimal(g->loss_lo, 8) : na);
  f.def("certLossHiDecimal", g ? approx_decimal(g->loss_hi, 8) : na);
  f.def("certGeneralRefined", g ? num(g->sequences_refined) : na);
  f.def("certGeneralExhausted", g ? num(g->budget_exhausted) : na);
  f.def("certGeneralBudget", !g ? na : g->attention == "softmax"
        ? num(g->precision) + " bits doubled up to " + num(g->refinements) + " times, " + num(g->branch_limit) +
              " ReLUs branched per token and layer, " + num(g->bisections) + " bisections per sequence"
        : std::string("none needed (exact arithmetic)"));
  f.def("certGeneralClass", !g ? na : "width " + num(g->width) + (g->width_in_class ? " $\\le 4$" : " $> 4$") +
        "; largest ranks of $A$, $V$: " + num(g->rank_A) + ", " + num(g->rank_V) +
        (g->rank_in_class ? " (both $\\le 1$)" : " (not both $\\le 1$)"));
  f.blank();
}

namespace {

// The run: version, date, setting, verdict, arithmetic, seed and model path.
void define_run(DataFile& f, const Certificate& cert, const RunInfo& run, const std::string& date) {
  const bool softmax = cert.setting == Setting::softmax;
  const bool construction = cert.construction.has_value();
  f.comment("Run");
  f.def("certVersion", latex_escape(SEQI_VERSION));
  f.def("certDate", latex_escape(date));
  f.def("certSetting", latex_escape(setting_name(cert.setting)));
  f.def("certVerified", cert.verified ? "VERIFIED" : "NOT VERIFIED");
  f.flag("certPassed", cert.verified);
  f.flag("certSoftmax", softmax);
  f.flag("certConstruction", construction);
  f.def("certArithmetic", latex_escape_breakable(run.arithmetic));
  f.def("certSeed", construction ? std::to_string(cert.construction->seed) : std::string("none (a given model)"));
  f.def("certModelPath", latex_escape_breakable(run.model_path));
  f.flag("certHasModelPath", !run.model_path.empty());
  f.blank();

}

// The dataset: name, path, hash, sizes and notes.
void define_dataset(DataFile& f, const Certificate& cert, const RunInfo& run, const Dataset& data,
                    const std::string& dataset_sha256) {
  const Counts& c = cert.counts;
  f.comment("Dataset");
  f.def("certDatasetName", latex_escape(run.dataset_name.empty() ? data.name : run.dataset_name));
  f.def("certDatasetPath", latex_escape_breakable(run.dataset_path));
  f.def("certDatasetHash", latex_escape(dataset_sha256));
  f.def("certN", num(c.N));
  f.def("certD", num(c.d));
  f.def("certSumM", num(c.sum_m));
  std::size_t sum_n = 0, min_n = 0, max_n = 0, min_m = 0, max_m = 0;
  for (std::size_t j = 0; j < data.pairs.size(); ++j) {
    const std::size_t n = data.pairs[j].input.size(), m = data.pairs[j].output.size();
    sum_n += n;
    min_n = j ? std::min(min_n, n) : n, max_n = std::max(max_n, n);
    min_m = j ? std::min(min_m, m) : m, max_m = std::max(max_m, m);
  }
  f.def("certSumN", num(sum_n));
  f.def("certMinN", num(min_n));
  f.def("certMaxN", num(max_n));
  f.def("certMinM", num(min_m));
  f.def("certMaxM", num(max_m));
  std::string notes;
  for (const auto& note : data.notes) notes += "\\item " + latex_escape_breakable(note) + "\n";
  f.def("certDatasetNotes", notes);
  f.flag("certHasNotes", !data.notes.empty());
  f.blank();

}

// Theorem against construction (lem:counts): blocks, width, ranks, parameters, bits, choices.
void define_counts(DataFile& f, const Certificate& cert) {
  const Counts& c = cert.counts;
  const bool softmax = cert.setting == Setting::softmax;
  const bool construction = cert.construction.has_value();
  f.comment("Theorem vs construction (lem:counts)");
  const std::size_t bound = softmax ? c.blocks_bound_softmax : c.blocks_bound_hardmax;
  f.def("certBlocks", num(c.blocks));
  f.def("certBlocksBound", num(bound));
  f.def("certBlocksRel", rel(c.blocks <= bound));
  f.def("certBlocksSeparation", num(phase_blocks(c, "separation")));
  f.def("certBlocksPlacement", num(phase_blocks(c, "placement")));
  f.def("certBlocksInterpolation", num(phase_blocks(c, "interpolation")));
  f.def("certBlocksUser", num(phase_blocks(c, "user")));
  f.flag("certUserPhase", c.blocks_by_phase.count("user") > 0);
  f.flag("certHasGroupedBound", c.blocks_bound_grouped > 0);
  f.def("certDistinctTargets", num(c.distinct_targets));
  f.def("certBlocksGroupedBound", num(c.blocks_bound_grouped));
  f.def("certBlocksGroupedFormula", c.hinges ? "\\lceil(N+1)/4\\rceil" : c.mean_collapse ? "N+[\\text{offset}]" : "K+\\sum_j m_j+D+2");
  f.def("certBlocksGroupedRel", rel(c.blocks <= c.blocks_bound_grouped));
  f.def("certWidth", num(c.width));
  f.def("certWidthBound", num(kTheoremWidthBound));
  f.def("certWidthRel", rel(c.width <= kTheoremWidthBound));
  f.def("certRankA", num(c.max_rank_A));
  f.def("certRankV", num(c.max_rank_V));
  f.def("certParams", num(c.params));
  f.def("certParamsDense", num(c.params_dense));
  f.def("certParamsBound", num(c.params_bound));
  f.def("certParamsRel", rel(c.params <= c.params_bound));
  f.def("certParamsDenseRel", rel(c.params_dense <= c.params_bound));
  f.def("certLifts", construction ? num(cert.construction->separation.lifts) : std::string("0"));
  f.def("certParamNormSq", to_string(c.param_norm_sq));
  f.def("certParamNormSqDecimal", approx_decimal(c.param_norm_sq, 8));
  f.def("certLearningClass", latex_escape(learning_class(cert)));
  std::string bits;
  std::vector<std::string> phases{"input", "separation", "placement", "collapse", "interpolation", "user"};
  for (const auto& [phase, b] : cert.max_bits_by_phase)
    if (std::find(phases.begin(), phases.end(), phase) == phases.end()) phases.push_back(phase);
  for (const auto& phase : phases)
    if (auto it = cert.max_bits_by_phase.find(phase); it != cert.max_bits_by_phase.end())
      bits += "\\certBits{" + latex_escape(phase) + "}{" + num(it->second) + "}%\n";
  f.def("certBitsList", "%\n" + bits);
  f.flag("certHasBits", !cert.max_bits_by_phase.empty());
  std::string choices;
  if (construction)
    for (const auto& g : cert.construction->choices)
      choices += "\\certChoice{" + latex_escape_breakable(g.what) + "}{" + std::to_string(g.attempts) + "}{" +
                 latex_escape_breakable(g.final_range.str()) + "}%\n";
  f.def("certChoiceList", "%\n" + choices);
  f.flag("certHasChoices", !choices.empty());
  f.blank();

}

// Every check with its lemma and outcome.
void define_checks(DataFile& f, const Certificate& cert) {
  f.comment("Checks: \\certCheck{index}{name}{lemma label in proofs/construction.tex}{outcome}{required}{detail}");
  std::size_t passed = 0, failed_required = 0, index = 0;
  std::string checks;
  for (const auto& ch : cert.checks) {
    passed += ch.passed;
    failed_required += !ch.passed && ch.required;
    checks += "\\certCheck{" + num(++index) + "}{" + latex_escape_breakable(ch.name) + "}{" + latex_escape_breakable(ch.lemma) + "}{" +
              check_status(ch) + "}{" + (ch.required ? "yes" : "no") + "}{" + latex_escape_breakable(ch.detail) + "}%\n";
  }
  f.def("certChecksTotal", num(cert.checks.size()));
  f.def("certChecksPassed", num(passed));
  f.def("certChecksFailedRequired", num(failed_required));
  f.def("certCheckList", "%\n" + checks);
  f.blank();

}

// Per-sequence outcomes (the first rows and the failing ones when the dataset is large).
void define_sequences(DataFile& f, const Certificate& cert, const Dataset& data) {
  f.comment("Per-sequence outcomes: \\certSequence{j}{n_j}{m_j}{outcome}{tau_j bound (softmax) or squared Hausdorff"
            " distance enclosure (given model)}{detail}");
  const std::size_t N = data.pairs.size();
  const bool truncated = N > kFullTableLimit;
  std::size_t matched = 0, failing = 0, shown = 0, failing_shown = 0, failing_not_shown = 0;
  std::string rows;
  for (std::size_t j = 0; j < N; ++j) {
    const SequenceOutcome* o = j < cert.sequences.size() ? &cert.sequences[j] : nullptr;
    const bool ok = o && o->matches;
    matched += ok;
    failing += !ok;
    bool show = !truncated || j < kTableHead;
    if (!ok && !show && failing_shown < kFailingShown) show = true, ++failing_shown;
    if (!show) {
      failing_not_shown += !ok;
      continue;
    }
    ++shown;
    std::string outcome = ok ? "matches" : o ? "MISMATCH" : "not checked", fifth, detail = o ? o->detail : "";
    if (cert.softmax && j < cert.softmax->tau_per_sequence.size()) {
      const auto& t = cert.softmax->tau_per_sequence[j];
      fifth = t ? approx_decimal(*t) : std::string("none");
    }
    if (cert.general && j < cert.general->sequences.size()) {  // lem:general-verdict: verdict and enclosure
      const auto& g = cert.general->sequences[j];
      outcome = g.verdict;
      fifth = "$[" + approx_decimal(g.hausdorff_sq_lo, 4) + ",\\," + approx_decimal(g.hausdorff_sq_hi, 4) + "]$";
      detail = g.detail;
    }
    rows += "\\certSequence{" + num(j + 1) + "}{" + num(data.pairs[j].input.size()) + "}{" +
            num(data.pairs[j].output.size()) + "}{" + latex_escape(outcome) + "}{" + fifth + "}{" +
            latex_escape_breakable(detail) + "}%\n";
  }
  f.def("certSequencesMatched", num(matched));
  f.def("certSequencesFailing", num(failing));
  f.def("certSequencesShown", num(shown));
  f.def("certSequencesOmitted", num(N - shown));
  f.def("certTableLimit", num(kFullTableLimit));
  f.def("certTableHead", num(kTableHead));
  f.def("certFailingNotShown", num(failing_not_shown));
  f.flag("certTruncated", truncated);
  f.def("certSequenceList", "%\n" + rows);
  f.blank();

}

// Softmax facts (lem:tau-star, lem:softmax-enclosure) and the conditioning.
void define_softmax_facts(DataFile& f, const Certificate& cert, const ConditioningReport& measurements) {
  const bool construction = cert.construction.has_value();
  f.comment("Softmax (lem:tau-star, lem:softmax-enclosure); the double pass is a contrast, not a certificate");
  const std::string na = "not applicable";
  const SoftmaxFacts* s = cert.softmax ? &*cert.softmax : nullptr;
  const bool tau_known = s && construction && !s->tau_unbounded;
  f.flag("certTauUnbounded", s && s->tau_unbounded);
  f.flag("certMeanCollapse", construction && cert.construction->mean_collapse);
  const std::string no_tau = !s ? na : !construction ? "not certified (a given model)" : "unbounded";
  f.def("certTauStar", tau_known ? to_string(s->tau_star_lower) : no_tau);
  f.def("certTauStarDecimal", tau_known ? approx_decimal(s->tau_star_lower) : no_tau);
  f.def("certTauBinding", tau_known ? num(s->binding_sequence + 1) : na);
  f.def("certTauChecked", s ? to_string(s->tau_checked) : na);
  f.def("certTauCheckedDecimal", s ? approx_decimal(s->tau_checked) : na);
  f.def("certMaxRadius", s ? to_string(s->max_enclosure_radius) : na);
  f.def("certMaxRadiusDecimal", s ? approx_decimal(s->max_enclosure_radius) : na);
  f.def("certFlatHalfwidth", s ? to_string(s->flat_halfwidth) : na);
  f.def("certFlatHalfwidthDecimal", s ? approx_decimal(s->flat_halfwidth) : na);
  f.def("certRadiusRel", s ? rel(s->max_enclosure_radius <= s->flat_halfwidth) : std::string("?"));
  f.def("certPrecision", s ? std::to_string(s->precision) : na);
  f.def("certSequencesRefined", s ? num(s->sequences_refined) : na);
  f.def("certConditioning", "%\n" + conditioning_latex(measurements));
  f.blank();

}

// One float statement (lem:float-run): a claim beside the exact certificate. prefix: certFloatRun
// (binary64) or certSingleRun (binary32); `what` names the run in the comment.
void define_float_statement(DataFile& f, const std::optional<FloatRunFacts>& statement, const std::string& prefix,
                            const std::string& what) {
  const std::string na = "not applicable";
  f.comment(what + " run of the rounded weights (lem:float-run): a claim beside the exact certificate");
  const FloatRunFacts* fr = statement ? &*statement : nullptr;
  f.flag(prefix + "Shown", fr && fr->certified);
  f.def(prefix + "Delta", fr && fr->certified ? fmt_double(fr->delta) : na);
  f.def(prefix + "RelativeDelta", fr && fr->certified ? fmt_double(fr->relative_delta) : na);
  f.def(prefix + "Failure", fr && !fr->certified ? latex_escape(fr->failure) : na);
  f.blank();

}

// The figures' snapshots.
void define_snapshots(DataFile& f, const Certificate& cert) {
  f.comment("Figures: \\certSnapshot{phase}{xmin}{xmax}{ymin}{ymax}{\\certSnapshotSequence{j}{coordinates 1, 2}...}");
  f.comment("(coordinates in doubles, for the figures only)");
  std::string snaps;
  for (const auto& snap : cert.snapshots) snaps += snapshot_macro(snap);
  f.def("certSnapshotList", "%\n" + snaps);
  f.flag("certHasSnapshots", !snaps.empty());
}

}  // namespace

std::string certificate_data_text(const RunReport& report, const RunInfo& run, const Dataset& data,
                                  const std::string& dataset_sha256, const std::string& date) {
  const Certificate& cert = report.certificate;
  DataFile f;
  f.comment("seqi certificate data: every value of the certificate, each defined once.");
  f.comment("Generated by seqi " + std::string(SEQI_VERSION) + "; the layout file \\input's this file.");
  f.blank();
  define_run(f, cert, run, date);
  define_dataset(f, cert, run, data, dataset_sha256);
  define_counts(f, cert);
  define_checks(f, cert);
  define_given_model_facts(f, cert);
  define_sequences(f, cert, data);
  define_softmax_facts(f, cert, report.measurements);
  define_float_statement(f, report.float_statement, "certFloatRun", "Float64");
  define_float_statement(f, report.float32_statement, "certSingleRun", "Float32");
  define_snapshots(f, cert);
  return f.str();
}

}  // namespace seqi
