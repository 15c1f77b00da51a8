// Per-sequence verdicts for any model (lem:general-verdict), softmax refinement (lem:refinement).
#include <algorithm>
#include <stdexcept>

#include "seqi/certification/bisection.hpp"
#include "seqi/certification/certificate_checks.hpp"
#include "seqi/certification/distance_enclosure.hpp"
#include "seqi/replay/float_replays.hpp"
#include "seqi/forward/general_forward.hpp"
#include "seqi/certification/general_models.hpp"

namespace seqi {
namespace {

GeneralFacts facts_of(const Certificate& cert, const GeneralOptions& opt, const char* attention) {
  GeneralFacts f;
  f.attention = attention;
  f.tolerance = opt.tolerance;
  f.width = cert.counts.width;
  f.rank_A = cert.counts.max_rank_A;
  f.rank_V = cert.counts.max_rank_V;
  f.width_in_class = f.width <= 4;
  f.rank_in_class = f.rank_A <= 1 && f.rank_V <= 1;
  return f;
}

GeneralSequenceReport report_of(const DistanceEnclosure& e, SequenceVerdict v) {
  GeneralSequenceReport r;
  r.verdict = verdict_name(v);
  r.hausdorff_sq_lo = e.hausdorff_sq_lo;
  r.hausdorff_sq_hi = e.hausdorff_sq_hi;
  r.loss_lo = e.loss_lo;
  r.loss_hi = e.loss_hi;
  if (v == SequenceVerdict::not_interpolating) r.detail = e.witness;
  return r;
}

// The one required check, the per-sequence outcomes and the mean loss.
void conclude_general(Certificate& cert, const Dataset& data, GeneralFacts& f) {
  std::size_t ok = 0;
  std::string first_failure;
  Rational lo = 0, hi = 0;
  for (std::size_t j = 0; j < f.sequences.size(); ++j) {
    const auto& r = f.sequences[j];
    const bool good = r.verdict == verdict_name(SequenceVerdict::exact) ||
                      r.verdict == verdict_name(SequenceVerdict::within_delta);
    ok += good;
    if (!good && first_failure.empty())
      first_failure = "sequence " + std::to_string(j + 1) + ": " + r.verdict + (r.detail.empty() ? "" : ": " + r.detail);
    cert.sequences.push_back({data.pairs[j].input.size(), data.pairs[j].output.size(), good,
                              r.verdict + (r.detail.empty() ? "" : ": " + r.detail), {}});
    lo += r.loss_lo;
    hi += r.loss_hi;
  }
  if (!f.sequences.empty()) {
    f.loss_lo = lo / static_cast<long>(f.sequences.size());
    f.loss_hi = hi / static_cast<long>(f.sequences.size());
  }
  const std::string what = f.tolerance == 0 ? "every sequence: output set = target set"
                                            : "every sequence: Hausdorff distance to the targets <= " +
                                                  to_string(f.tolerance);
  cert.add({what, "lem:general-verdict", ok == f.sequences.size(), true,
            ok == f.sequences.size() ? std::to_string(ok) + " of " + std::to_string(f.sequences.size()) + " sequences"
                                     : std::to_string(f.sequences.size() - ok) + " sequences fail; first: " +
                                           first_failure});
}

// Where an undecided sequence lost exactness: the widest output token and its first enclosing block.
std::string undecided_detail(const SequenceEnclosure& s, const DistanceEnclosure& e) {
  const std::size_t i = e.widest_token;
  std::string d = "output token " + std::to_string(i + 1);
  if (i < s.inexact_since.size() && s.inexact_since[i])
    d += " (enclosed since block " + std::to_string(*s.inexact_since[i] + 1) + ")";
  d += ": squared Hausdorff distance in [" + approx_decimal(e.hausdorff_sq_lo, 8) + ", " +
       approx_decimal(e.hausdorff_sq_hi, 8) + "]";
  if (s.first_interval_relu) d += "; first interval ReLU at " + *s.first_interval_relu;
  return d;
}

// Still undecided at the last precision r.precision: bisection cells (lem:bisection).
GeneralSequenceReport bisected(const Transformer<Rational>& model, const SequencePair& pair, const GeneralOptions& opt,
                               GeneralSequenceReport r) {
  try {
    const auto b = bisect_sequence(model, pair, *opt.tau, r.precision, opt.branch_limit, opt.tolerance, opt.bisections);
    if (!b) return r;
    GeneralSequenceReport s = report_of(b->distance, b->verdict);
    s.precision = r.precision;
    s.passes = r.passes;
    s.branched_units = r.branched_units;
    s.interval_units = r.interval_units;
    s.enclosure_radius = r.enclosure_radius;
    s.bisection_cells = b->cells;
    s.detail = b->verdict == SequenceVerdict::undecided
                   ? r.detail + "; still undecided after " + std::to_string(b->cells) + " bisection cells (split after block " +
                         std::to_string(b->split_block + 1) + ")"
                   : b->detail;
    return s;
  } catch (const std::overflow_error&) {
  } catch (const std::domain_error&) {
  }
  return r;  // the cells' passes failed where the whole pass did not: keep the undecided report
}

// Passes at precision p, 2p, 4p, ... until the verdict is decided or the budget is spent.
GeneralSequenceReport certify_sequence_softmax(const Transformer<Rational>& model, const SequencePair& pair,
                                               const GeneralOptions& opt) {
  GeneralSequenceReport r;
  unsigned prec = opt.precision_bits;
  const Sequence input = pair.input.points();
  for (unsigned pass = 0; pass <= opt.refinements; ++pass, prec *= 2) {
    try {
      const SequenceEnclosure s = softmax_sequence_enclosure(model, input, *opt.tau, prec, opt.branch_limit);
      const DistanceEnclosure e = distance_to_targets(s.outputs, pair.output.points(), prec);
      const SequenceVerdict v = verdict_of(e, opt.tolerance);
      r = report_of(e, v);
      r.branched_units = s.branched_units;
      r.interval_units = s.interval_units;
      for (const auto& o : s.outputs)
        if (!o.is_exact()) r.enclosure_radius = std::max(r.enclosure_radius, max_width(box_of(o, prec)) / 2);
      if (v == SequenceVerdict::undecided) r.detail = undecided_detail(s, e);
    } catch (const std::overflow_error& ex) {  // an enclosure left MPFR's range
      r = GeneralSequenceReport{};
      r.verdict = verdict_name(SequenceVerdict::undecided);
      r.detail = std::string("interval overflow: ") + ex.what();
    } catch (const std::domain_error& ex) {  // e.g. a divisor enclosure containing 0
      r = GeneralSequenceReport{};
      r.verdict = verdict_name(SequenceVerdict::undecided);
      r.detail = std::string("interval arithmetic: ") + ex.what();
    }
    r.precision = prec;
    r.passes = pass + 1;
    if (r.verdict != verdict_name(SequenceVerdict::undecided)) return r;
  }
  if (opt.bisections > 0 && r.detail.rfind("interval", 0) != 0) return bisected(model, pair, opt, std::move(r));
  return r;
}

}  // namespace

RunReport certify_general_hardmax(const Dataset& data, const Transformer<Rational>& model, const GeneralOptions& opt) {
  RunReport report;
  Certificate& cert = report.certificate;
  cert.setting = Setting::hardmax;
  cert.counts = count_model(model, data.pairs.size(), data.sum_m());
  GeneralFacts f = facts_of(cert, opt, "hardmax");
  ExactForward pass(inputs_of(data));
  for (const auto& b : model.blocks) pass.apply_block(b);
  const auto outputs = outputs_of(pass.state());
  for (std::size_t j = 0; j < data.pairs.size(); ++j) {
    std::vector<AffineEnclosure> o;
    for (const auto& x : outputs[j]) o.push_back(AffineEnclosure::exact(x));
    const DistanceEnclosure e = distance_to_targets(o, data.pairs[j].output.points(), 64);  // exact: no interval is formed
    GeneralSequenceReport r = report_of(e, verdict_of(e, opt.tolerance));
    r.passes = 1;
    f.sequences.push_back(std::move(r));
  }
  conclude_general(cert, data, f);
  cert.stats = pass.stats();
  cert.general = std::move(f);
  cert.conclude();
  return report;
}

RunReport certify_general_softmax(const Dataset& data, const Transformer<Rational>& model, const GeneralOptions& opt) {
  if (!opt.tau || *opt.tau <= 0) throw std::invalid_argument("certify_general_softmax: tau > 0 required");
  RunReport report;
  Certificate& cert = report.certificate;
  cert.setting = Setting::softmax;
  report.measurements = weight_conditioning(model, std::nullopt);
  cert.counts = count_model(model, data.pairs.size(), data.sum_m(), report.measurements.norm_sq);
  GeneralFacts f = facts_of(cert, opt, "softmax");
  f.tau = opt.tau;
  f.precision = opt.precision_bits;
  f.refinements = opt.refinements;
  f.branch_limit = opt.branch_limit;
  f.bisections = opt.bisections;
  for (const auto& pair : data.pairs) {
    f.sequences.push_back(certify_sequence_softmax(model, pair, opt));
    f.sequences_refined += f.sequences.back().passes > 1;
    f.budget_exhausted += f.sequences.back().verdict == verdict_name(SequenceVerdict::undecided);
    f.sequences_bisected += f.sequences.back().bisection_cells > 0;
  }
  conclude_general(cert, data, f);
  SoftmaxFacts sf;
  sf.tau_checked = *opt.tau;
  sf.precision = opt.precision_bits;
  for (const auto& r : cert.general ? cert.general->sequences : f.sequences)
    sf.max_enclosure_radius = std::max(sf.max_enclosure_radius, r.enclosure_radius);
  const auto dbl = replay_float64_and_float32(model, data, opt.tau->convert_to<double>(), std::nullopt, {});
  report.measurements.float_runs = {dbl.float64, dbl.float32};
  cert.softmax = sf;
  cert.general = std::move(f);
  cert.conclude();
  return report;
}

}  // namespace seqi
