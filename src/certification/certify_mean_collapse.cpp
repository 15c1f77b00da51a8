// Certification of the mean-collapse construction (lem:mean-collapse), both settings: every
// attention layer has A = 0, so hardmax and softmax at every tau give exactly the sequence means
// (lem:mean-shift) and the whole forward pass is exact; tau* is unbounded.
#include "seqi/certification/mean_collapse_checks.hpp"

#include "seqi/certification/certificate_checks.hpp"
#include "seqi/certification/construction_checks.hpp"
#include "seqi/certification/counts.hpp"
#include "seqi/certification/hinge_checks.hpp"
#include "seqi/certification/statement_check.hpp"
#include "seqi/float_statement/float_reference.hpp"
#include "seqi/replay/float_replays.hpp"

namespace seqi {
namespace {

// Empty when block 0's attention is (0, 0, v a^T) with the record's v and a; otherwise what differs.
std::string mean_collapse_layer_mismatch(const Construction& built) {
  if (built.record.collapse_block != 0) return "the collapse is not block 1";
  if (built.model.blocks.empty()) return "the model has no block";
  const auto& sa = built.model.blocks.front().sa;
  const auto& rec = built.record.interpolation;
  if (sa.rho != 0) return "rho is not 0";
  if (!sa.A.is_zero()) return "A is not 0";
  if (sa.V.alpha != 0 || sa.V.terms.size() != 1) return "V is not a single rank-one term v a^T";
  const auto& t = sa.V.terms.front();
  if (t.p.size() != rec.v.size() || !equal_points(t.p, rec.v)) return "V's left factor is not the recorded v";
  if (t.q.size() != rec.a.size() || !equal_points(t.q, rec.a)) return "V's right factor is not the recorded a";
  return {};
}

// Empty when z_j = a . mu_j for every sequence (mu_j the exact mean of X_j); otherwise the first j.
std::string collapse_value_mismatch(const Dataset& data, const InterpolationRecord& rec) {
  if (rec.z.size() != data.pairs.size())
    return "the record has " + std::to_string(rec.z.size()) + " collapse values for " +
           std::to_string(data.pairs.size()) + " sequences";
  // sum_i num . x_i = den sum_i a . x_i, token by token (integer_dot on the dataset's int64
  // numerators, else the decoded token).
  const auto a = integer_numerators(rec.a);
  const Rational den = a ? Rational(a->second) : Rational(1);
  for (std::size_t j = 0; j < data.pairs.size(); ++j) {
    const TokenSequence& in = data.pairs[j].input;
    Rational sum = 0, term;
    for (std::size_t i = 0; i < in.size(); ++i) {
      if (!(a && in.integer_dot(i, a->first, term))) term = dot(rec.a, in[i]) * den;
      sum += term;
    }
    if (sum / (den * static_cast<long>(in.size())) != rec.z[j])
      return "sequence " + std::to_string(j + 1) + ": z is not a . mu";
  }
  return {};
}

// The exact tokens after block 1's attention, one per sequence: z_j v (lem:mean-shift).
TokenState collapsed_tokens(const InterpolationRecord& rec) {
  TokenState s;
  s.tokens.reserve(rec.z.size());
  for (const Rational& z : rec.z) {
    s.tokens.push_back(rec.v * z);
    s.begin.push_back(s.tokens.size());
  }
  return s;
}

// Every attention layer has A = 0 (lem:mean-shift), so the softmax pass is the exact one.
std::optional<std::size_t> first_scored_attention(const Transformer<Rational>& model) {
  for (std::size_t b = 0; b < model.blocks.size(); ++b)
    if (!model.blocks[b].sa.is_identity() && !model.blocks[b].sa.is_mean_shift()) return b;
  return std::nullopt;
}

// Whether every attention layer after block 1's is the identity.
bool identity_after_first(const Transformer<Rational>& model) {
  for (std::size_t b = 1; b < model.blocks.size(); ++b)
    if (!model.blocks[b].sa.is_identity()) return false;
  return true;
}

// lem:tau-star with no constraint: every tau > 0 (tau: opt's, else 1).
SoftmaxFacts unbounded_temperature(Certificate& cert, const Construction& built, const SoftmaxOptions& opt) {
  SoftmaxFacts facts;
  facts.tau_unbounded = true;
  facts.tau_checked = opt.tau ? *opt.tau : Rational(1);
  facts.flat_halfwidth = built.record.interpolation.df;
  facts.max_enclosure_radius = 0;
  facts.tau_per_sequence.assign(cert.counts.N, std::nullopt);
  cert.add({"tau* unbounded: every attention layer has A = 0, exact at every tau > 0", "lem:tau-star", true, true,
            "no sequence constrains tau: every tau > 0"});
  return facts;
}

// The outcomes of a pass that kept one token per sequence, stated for every token of X_j.
void state_for_every_token(std::vector<SequenceOutcome>& outcomes, const Dataset& data) {
  for (std::size_t j = 0; j < outcomes.size(); ++j) {
    SequenceOutcome& o = outcomes[j];
    o.n = data.pairs[j].input.size();
    if (o.matches && !o.target_of.empty()) o.target_of.assign(o.n, o.target_of.front());
  }
}

}  // namespace

bool add_mean_collapse_checks(Certificate& cert, const Dataset& data, const Construction& built) {
  const std::string layer = mean_collapse_layer_mismatch(built);
  cert.add({"collapse attention is (0, 0, v a^T) with the recorded v and a: every token of X_j goes to (a . mu_j) v",
            "lem:mean-collapse", layer.empty(), true, layer.empty() ? "block 1" : layer});
  if (!layer.empty()) return false;
  const std::string values = collapse_value_mismatch(data, built.record.interpolation);
  cert.add({"collapse values z_j = a . mu_j, mu_j the mean of X_j", "lem:mean-collapse", values.empty(), true,
            values.empty() ? std::to_string(data.pairs.size()) + " sequences" : values});
  if (built.record.interpolation.by_hinges)
    add_hinge_structure_checks(cert, data, built);
  else
    add_collapse_and_order_checks(cert, data, built);
  return values.empty();
}

RunReport certify_mean_collapse(const Dataset& data, const Construction& built, const SoftmaxOptions* softmax,
                                const Execution& exec) {
  BackgroundReplays replays(built.model, data, built.record.collapse_block, exec);
  RunReport report;
  Certificate& cert = report.certificate;
  cert.setting = softmax ? Setting::softmax : Setting::hardmax;
  cert.construction = summary_of(built.record);
  report.measurements = weight_conditioning(built.model, built.record.collapse_block, exec);
  cert.counts = count_model(built.model, data.pairs.size(), data.sum_m(), report.measurements.norm_sq);
  add_shape_checks(cert, true);
  if (built.record.interpolation.by_hinges) {
    add_hinge_count_checks(cert, data, built);
  } else {
    add_block_count_checks(cert, data, built);
    const auto predicted = predicted_mean_collapse_params(cert.counts.d, built.record.interpolation.runs.size(),
                                                         built.record.interpolation.has_offset());
    cert.add({"parameters = (8d+8) runs + 2d + (2d+5)[offset]", "lem:fewer-blocks-count",
              cert.counts.params == predicted, true, count_detail(cert.counts.params, "=", predicted)});
  }
  const auto scored = first_scored_attention(built.model);
  cert.add({"every attention layer has A = 0 (or is the identity): exact means in both settings", "lem:mean-shift",
            !scored, true, scored ? "block " + std::to_string(*scored + 1) + " is not" : "all"});
  if (!add_mean_collapse_checks(cert, data, built) || scored) {
    cert.conclude();
    return report;
  }

  std::optional<SoftmaxFacts> facts;
  if (softmax) facts = unbounded_temperature(cert, built, *softmax);
  // After block 1's attention every token of X_j is z_j v (lem:mean-shift; the layer and z_j checked
  // above): where every later attention layer is the identity, the pass starts there with one token
  // per sequence, and the float bound reads the inputs sequence by sequence.
  const bool collapsed = identity_after_first(built.model);
  const std::optional<Rational> tau = facts ? std::optional<Rational>(facts->tau_checked) : std::nullopt;
  ExactForward pass = collapsed ? ExactForward::kept_one_per_sequence(collapsed_tokens(built.record.interpolation),
                                                                      exec.threads, exec.sharding)
                                : ExactForward(inputs_of(data, exec.threads), exec.threads, exec.sharding);
  ExactReference view(pass);
  std::optional<FloatRunBound> bound;
  if (collapsed) {
    bound.emplace(built.model, view, data, cert.setting, tau, exec, statement_formats(exec));
    cert.max_bits_by_phase["input"] = bound->input_bits();
    cert.snapshots.push_back(snapshot_of(inputs_of(data, 0, std::min(kSnapshotSequences, data.pairs.size())), "input"));
  } else {
    bound.emplace(built.model, view, pass.state().begin, cert.setting, tau, exec.threads, statement_formats(exec));
    record_phase_end(cert, pass.state(), "input", exec.threads);
  }
  progress_phase(exec.progress, "certifying: exact forward pass (blocks)", built.model.blocks.size());
  run_exact_blocks(report, pass, built.model, 0, built.model.blocks.size(), exec, &*bound, {});
  const bool kept = collapsed;
  cert.add({"after block 1's attention the tokens of each X_j are one point: the pass carries one per sequence",
            "lem:mean-collapse", kept, false, kept ? "all sequences" : "not so: every token carried"});
  cert.stats = pass.stats();
  const std::vector<FloatRunFacts> float_run = bound->finish();
  add_interpolation_check(cert, data, outputs_of(pass.release_state()), exec);
  if (kept) state_for_every_token(cert.sequences, data);
  cert.softmax = facts;

  progress_phase(exec.progress, "certifying: float64 and float32 replays", 0);
  const auto dbl = replays.finish(facts ? std::optional<double>(facts->tau_checked.convert_to<double>()) : std::nullopt,
                                  {});
  report.measurements.float_runs = {dbl.float64, dbl.float32};
  add_float_run_check(report, float_run, exec);
  cert.conclude();
  return report;
}

}  // namespace seqi
