#include "seqi/certification/certificate_checks.hpp"
#include "seqi/certification/construction_checks.hpp"
#include "seqi/certification/mean_collapse_checks.hpp"
#include "seqi/replay/float_replays.hpp"
#include "seqi/float_statement/float_reference.hpp"
#include "seqi/certification/statement_check.hpp"
#include "seqi/construction/grouped_places.hpp"

namespace seqi {
namespace {

// The exact forward pass and every check on it (Lemmas P, collapse, interpolation), with the
// float64 bound following the same pass (lem:float-run; its facts are returned, not checked
// here). The token state is freed on return.
std::vector<FloatRunFacts> certify_exact_pass(RunReport& report, const Dataset& data, const Construction& built, bool brute,
                                 const Execution& exec) {
  Certificate& cert = report.certificate;
  ExactForward pass(inputs_of(data, exec.threads), exec.threads, exec.sharding);
  ExactReference view(pass);
  FloatRunBound bound(built.model, view, pass.state().begin, Setting::hardmax, std::nullopt, exec.threads,
                      statement_formats(exec));
  record_phase_end(cert, pass.state(), "input", exec.threads);
  const auto& blocks = built.model.blocks;
  const std::size_t collapse = built.record.collapse_block;
  progress_phase(exec.progress, "certifying: exact forward pass to the collapse (blocks)", collapse);
  run_exact_blocks(report, pass, built.model, 0, collapse, exec, &bound);
  add_placement_checks(cert, pass.state(), built, exec.threads);
  add_collapse_and_order_checks(cert, data, built);
  add_spread_slots_check(cert, data, built);
  add_places_left_check(cert, built, exec.threads);
  progress_phase(exec.progress, "certifying: Lemma P (sequences)", data.pairs.size());
  add_lemma_p_check(cert, pass.state(), built, brute, exec);
  add_construction_margins(report.measurements, data, built.record, pass.state(), *cert.lemma_p);
  progress_phase(exec.progress, "certifying: exact forward pass from the collapse (blocks)", blocks.size() - collapse);
  // Lemma P shown: each argmax is unique and known; else the plain hardmax layer.
  follow_exactly(bound, collapse, pass, blocks[collapse], cert.lemma_p->ok ? &cert.lemma_p->attends : nullptr,
                 [&] { cert.snapshots.push_back(snapshot_of(pass.state(), "collapse")); });
  if (const auto& w = pass.last_relative_window()) note_relative_window(report.measurements, "interpolation", *w);
  progress_advance(exec.progress);
  run_exact_blocks(report, pass, built.model, collapse + 1, blocks.size(), exec, &bound);
  cert.stats = pass.stats();
  std::vector<FloatRunFacts> float_run = bound.finish();
  add_interpolation_check(cert, data, outputs_of(pass.release_state()), exec);
  return float_run;
}

}  // namespace

RunReport certify_construction_hardmax(const Dataset& data, const Construction& built, bool brute,
                                       const Execution& exec) {
  if (built.record.mean_collapse) return certify_mean_collapse(data, built, nullptr, exec);
  // The replays' first stage starts at once, on the core the checks below leave idle.
  BackgroundReplays replays(built.model, data, built.record.collapse_block, exec);
  RunReport report;
  Certificate& cert = report.certificate;
  cert.setting = Setting::hardmax;
  cert.construction = summary_of(built.record);
  report.measurements = weight_conditioning(built.model, built.record.collapse_block, exec);
  cert.counts = count_model(built.model, data.pairs.size(), data.sum_m(), report.measurements.norm_sq);
  add_shape_checks(cert, true);
  add_block_count_checks(cert, data, built);
  const auto predicted = predicted_construction_params(cert.counts.d, cert.counts.sum_m,
                                                       built.record.separation.shift_used,
                                                       built.record.separation.lifts,
                                                       built.record.interpolation.runs.size(),
                                                       runs_of_grouped_places(data));
  cert.add({"parameters = (6d+7)(sum(m) + K) + (2d+1) plateaus + (8d+8) runs + 4d + 1 + 2d[shift]", "lem:fewer-blocks-count",
            cert.counts.params == predicted, true, count_detail(cert.counts.params, "=", predicted)});

  add_collapse_layer_check(cert, built);  // the record's z refer to this layer (lem:collapse)

  const std::vector<FloatRunFacts> float_run = certify_exact_pass(report, data, built, brute, exec);
  progress_phase(exec.progress, "certifying: float64 and float32 replays", 0);
  const auto dbl =
      replays.finish(std::nullopt, cert.lemma_p->ok ? cert.lemma_p->attends : std::vector<std::size_t>{});
  report.measurements.float_runs = {dbl.float64, dbl.float32};
  add_float_run_check(report, float_run, exec);
  cert.conclude();
  return report;
}

RunReport certify_model_hardmax(const Dataset& data, const Transformer<Rational>& model) {
  RunReport report;
  Certificate& cert = report.certificate;
  cert.setting = Setting::hardmax;
  report.measurements = weight_conditioning(model, std::nullopt);
  cert.counts = count_model(model, data.pairs.size(), data.sum_m(), report.measurements.norm_sq);
  add_shape_checks(cert, false);
  ExactForward pass(inputs_of(data));
  for (const auto& b : model.blocks) pass.apply_block(b);
  add_interpolation_check(cert, data, outputs_of(pass.state()));
  const auto dbl = replay_float64_and_float32(model, data, std::nullopt, std::nullopt, {});
  report.measurements.float_runs = {dbl.float64, dbl.float32};
  cert.stats = pass.stats();
  add_float_run_check(report, data, model, Setting::hardmax, Execution{});
  cert.conclude();
  return report;
}

}  // namespace seqi
