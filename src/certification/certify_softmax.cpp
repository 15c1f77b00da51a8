// Softmax certification (Thm 1.8): everything but the collapse is exact (lem:mean-shift);
// the collapse is enclosed on the exact direction v (lem:softmax-enclosure) and carried
// exactly through the flat hats (lem:direction-carrying); tau* is certified (lem:tau-star).
#include <algorithm>
#include <memory>
#include <variant>

#include "seqi/forward/carried_forward.hpp"
#include "seqi/certification/certificate_checks.hpp"
#include "seqi/certification/collapse_enclosures.hpp"
#include "seqi/certification/construction_checks.hpp"
#include "seqi/certification/mean_collapse_checks.hpp"
#include "seqi/replay/float_replays.hpp"
#include "seqi/float_statement/float_reference.hpp"
#include "seqi/certification/statement_check.hpp"
#include "seqi/certification/softmax_bounds.hpp"
#include "seqi/numbers/bit_limit.hpp"
#include "seqi/core/sharding.hpp"

namespace seqi {
namespace {

// Bits so that rounding errors stay far below df relative to the spreads D_j.
unsigned default_precision(const std::vector<Rational>& spread, const Rational& df) {
  Rational worst = 1;
  for (const auto& D : spread) worst = std::max(worst, D / df);
  return 64 + static_cast<unsigned>(bit_size(worst));
}

// Attention layers of blocks other than `except` are identity or mean-shift (exact in softmax).
std::optional<std::size_t> first_inexact_attention(const Transformer<Rational>& model, std::size_t except) {
  for (std::size_t b = 0; b < model.blocks.size(); ++b)
    if (b != except && !model.blocks[b].sa.is_identity() && !model.blocks[b].sa.is_mean_shift()) return b;
  return std::nullopt;
}

// Carries the tokens through blocks [from, end) with the float64 bound following (attention,
// then feed-forward); returns a failure naming block, sequence and token.
std::optional<std::string> carry_through(CarriedForward& carried, FloatRunBound& bound,
                                         const Transformer<Rational>& model, std::size_t from, const Rational& tau) {
  for (std::size_t b = from; b < model.blocks.size(); ++b) {
    try {
      const auto& block = model.blocks[b];
      if (auto f = bound.block(
              b, [&](const std::vector<std::size_t>&) { return carried.apply_attention(block.sa, tau); },
              [&](const std::optional<OneDirectionForm>&) { return carried.apply_feed_forward(block.ff); }))
        return "block " + std::to_string(b + 1) + ": " + *f;
    } catch (const BitLimitExceeded& e) {
      throw BitLimitExceeded("block " + std::to_string(b + 1) + ", " + e.what());
    }
  }
  return std::nullopt;
}

// Each enclosure must lie in the flat [z - df, z + df] of its leader's value z (lem:softmax-enclosure);
// z: leader_values of the state entering the collapse. Sets facts.max_enclosure_radius.
void add_flat_check(Certificate& cert, SoftmaxFacts& facts, const CarriedForward& carried,
                    const std::vector<Rational>& z, const Rational& df) {
  std::optional<std::string> outside;
  facts.max_enclosure_radius = 0;
  for (std::size_t i = 0; i < z.size(); ++i) {
    const auto& t = carried.tokens()[i];
    const Rational deviation = std::max(z[i] - t.lo, t.hi - z[i]);
    facts.max_enclosure_radius = std::max(facts.max_enclosure_radius, deviation);
    if (deviation > df && !outside)
      outside = carried.where(i) + ": its collapse value lies in [" + approx_decimal(t.lo, 12) + ", " +
                approx_decimal(t.hi, 12) + "], which leaves the flat [z - df, z + df] around its leader's z = " +
                approx_decimal(z[i], 12) + " (df = " + approx_decimal(df) + ")";
  }
  cert.add({"every collapse enclosure lies inside its flat at tau", "lem:softmax-enclosure", !outside, true,
            outside ? *outside : "max distance to the leader's value " + approx_decimal(facts.max_enclosure_radius) +
                                     " <= df = " + approx_decimal(df)});
}

// Midpoints p + w (lo + hi)/2 of the enclosures of the first `sequences` sequences (for figures).
TokenState enclosure_centres(const CarriedForward& carried, std::size_t sequences) {
  TokenState s;
  const auto& b = carried.begin();
  s.begin.assign(b.begin(), b.begin() + static_cast<std::ptrdiff_t>(std::min(sequences, b.size() - 1) + 1));
  for (std::size_t i = 0; i < s.begin.back(); ++i) {
    const auto& t = carried.tokens()[i];
    s.tokens.push_back(t.is_exact() ? t.p : Point(t.p + t.direction() * ((t.lo + t.hi) / 2)));
  }
  return s;
}

// The final tokens must all be exact points: they are moved out of `carried` and compared with
// the targets (lem:interpolation).
void add_carry_checks(Certificate& cert, const Dataset& data, CarriedForward& carried,
                      std::optional<std::string> failure, const Execution& exec) {
  std::optional<TokenState> out;
  if (!failure) {
    auto released = carried.release_points();
    if (auto* s = std::get_if<TokenState>(&released))
      out = std::move(*s);
    else
      failure = carried.where(std::get<std::size_t>(released)) + ": output is still an enclosure, not an exact point";
  }
  if (out) record_phase_end(cert, *out, "interpolation", exec.threads);
  cert.add({"softmax enclosures carried exactly through every later layer", "lem:direction-carrying", !failure, true,
            failure ? *failure : "every output is an exact rational point"});
  if (out) add_interpolation_check(cert, data, outputs_of(std::move(*out)), exec);
}

// lem:tau-star: the certified lower bound on tau* from Lemma P's margins and the temperature
// checked (opt.tau, else half the bound, 1 when unbounded), with their two checks.
SoftmaxFacts fix_temperature(Certificate& cert, const std::vector<std::size_t>& n, const LemmaPResult& lp,
                             const Rational& df, const SoftmaxOptions& opt) {
  SoftmaxFacts facts;
  facts.flat_halfwidth = df;
  facts.precision = opt.precision_bits ? opt.precision_bits : default_precision(lp.spread, df);
  const TauStarBound tau_star = certified_tau_star(n, lp.margin, lp.spread, df, facts.precision);
  facts.tau_unbounded = tau_star.unbounded;
  facts.tau_star_lower = tau_star.lower;
  facts.binding_sequence = tau_star.binding;
  facts.tau_per_sequence = tau_star.per_sequence;
  facts.tau_checked = opt.tau ? *opt.tau : tau_star.unbounded ? Rational(1) : tau_star.lower / 2;
  cert.add({"tau* >= min_j G_j / ln((n_j - 1) D_j / df), outward rounded", "lem:tau-star", true, true,
            tau_star.unbounded ? "no sequence constrains tau: every tau > 0"
                               : "tau* >= " + to_string(tau_star.lower) + " (binding: sequence " +
                                     std::to_string(tau_star.binding + 1) + ")"});
  cert.add({"tau checked <= certified tau* lower bound", "lem:tau-star",
            tau_star.unbounded || facts.tau_checked <= tau_star.lower, false,
            "tau = " + to_string(facts.tau_checked)});
  return facts;
}

// lem:softmax-enclosure: the collapse plan, with per sequence (on exec.threads threads) the O(1)
// radius, or nullopt where it exceeds df (or under opt.brute): those get per-token enclosures,
// counted in facts.sequences_refined.
CollapseEnclosures plan_collapse_enclosures(const Construction& built, const std::vector<std::size_t>& n,
                                            const LemmaPResult& lp, SoftmaxFacts& facts, const SoftmaxOptions& opt,
                                            const Execution& exec) {
  const Rational& df = built.record.interpolation.df;
  CollapseEnclosures plan;
  plan.block = built.record.collapse_block;
  plan.tau = facts.tau_checked;
  plan.v = std::make_shared<const Point>(built.record.interpolation.v);
  plan.a = built.record.interpolation.a;
  plan.attends = lp.attends;
  progress_phase(exec.progress, "certifying: softmax collapse enclosures (sequences)", n.size());
  plan.radius.resize(n.size());
  for_each_index_shared(
      n.size(), exec,
      [&](std::size_t j) {
        progress_advance(exec.progress);
        if (opt.brute) return;
        Rational r = lp.margin[j] ? collapse_error_bound(n[j], *lp.margin[j], lp.spread[j], facts.tau_checked,
                                                         facts.precision)
                                  : Rational(0);
        if (r <= df) plan.radius[j] = std::move(r);
      },
      [&](ByteWriter& w, std::size_t j) { w.put(plan.radius[j]); },
      [&](ByteReader& r, std::size_t j) { plan.radius[j] = r.optional_rational(); });
  facts.sequences_refined = static_cast<std::size_t>(
      std::count_if(plan.radius.begin(), plan.radius.end(), [](const auto& r) { return !r; }));
  return plan;
}

// Everything but the float replays, into report: the exact pass, tau*, the collapse enclosures and their
// carry to the output, with the float64 and float32 bounds following the same pass (lem:float-run; their facts
// go to float_run, not checked here). cert.softmax and float_run are set when tau was fixed. The
// token state is freed on return, before the float replays make their own.
void certify_softmax_exactly(RunReport& report, const Dataset& data, const Construction& built,
                             const SoftmaxOptions& opt, const Execution& exec, std::vector<FloatRunFacts>& float_run) {
  Certificate& cert = report.certificate;
  cert.setting = Setting::softmax;
  cert.construction = summary_of(built.record);
  const std::size_t collapse = built.record.collapse_block;
  report.measurements = weight_conditioning(built.model, collapse, exec);
  cert.counts = count_model(built.model, data.pairs.size(), data.sum_m(), report.measurements.norm_sq);
  add_shape_checks(cert, true);
  add_block_count_checks(cert, data, built);
  const auto inexact = first_inexact_attention(built.model, collapse);
  cert.add({"attention layers other than the collapse are exact under softmax (A = 0 or identity)", "lem:mean-shift",
            !inexact, true, inexact ? "block " + std::to_string(*inexact + 1) + " is not" : "all"});

  // Everything below evaluates the collapse through the recorded v and a: establish that first.
  if (!add_collapse_layer_check(cert, built)) return cert.conclude();

  ExactForward pass(inputs_of(data, exec.threads), exec.threads, exec.sharding);
  // The bound's layers before the collapse have A = 0 (checked above; else no bound): they do not
  // need tau, which Lemma P fixes below.
  ExactReference view(pass);
  FloatRunBound bound(built.model, view, pass.state().begin, Setting::softmax, std::nullopt, exec.threads,
                      statement_formats(exec));
  record_phase_end(cert, pass.state(), "input", exec.threads);
  progress_phase(exec.progress, "certifying: exact forward pass to the collapse (blocks)", collapse);
  run_exact_blocks(report, pass, built.model, 0, collapse, exec, inexact ? nullptr : &bound);
  add_placement_checks(cert, pass.state(), built, exec.threads);
  add_collapse_and_order_checks(cert, data, built);
  add_spread_slots_check(cert, data, built);
  add_places_left_check(cert, built, exec.threads);
  progress_phase(exec.progress, "certifying: Lemma P (sequences)", data.pairs.size());
  add_lemma_p_check(cert, pass.state(), built, opt.brute, exec);
  add_construction_margins(report.measurements, data, built.record, pass.state(), *cert.lemma_p);
  cert.stats = pass.stats();
  if (!cert.lemma_p->ok || inexact) return cert.conclude();

  const LemmaPResult& lp = *cert.lemma_p;
  const Rational& df = built.record.interpolation.df;
  std::vector<std::size_t> n;
  for (const auto& p : data.pairs) n.push_back(p.input.size());
  SoftmaxFacts facts = fix_temperature(cert, n, lp, df, opt);
  bound.set_tau(facts.tau_checked);

  // Collapse: the O(1) bound of lem:softmax-enclosure per sequence, per-token enclosures where it is too weak.
  const auto& sa = built.model.blocks[collapse].sa;  // = (rho, alpha I, v a^T), checked above
  const CollapseEnclosures plan = plan_collapse_enclosures(built, n, lp, facts, opt, exec);
  std::optional<CarriedForward> carried;
  std::optional<std::string> carry_failure;
  // The collapse block: its attention layer enclosed (the exact state moves into the carried
  // one), each enclosure checked against its flat, then its feed-forward layer carried.
  const auto enclose = [&](const std::vector<std::size_t>&) -> std::optional<std::string> {
    carried.emplace(pass.release_state(), facts.precision, exec.threads);
    view.follow(*carried);
    const std::vector<Rational> z = leader_values(*carried, plan, exec.threads);
    auto failure = enclose_collapse(*carried, sa, plan, z);
    cert.snapshots.push_back(snapshot_of(enclosure_centres(*carried, kSnapshotSequences), "collapse"));
    add_flat_check(cert, facts, *carried, z, df);
    return failure;
  };
  try {
    carry_failure = bound.block(collapse, enclose, [&](const std::optional<OneDirectionForm>&) {
      return carried->apply_feed_forward(built.model.blocks[collapse].ff);
    });
  } catch (const BitLimitExceeded& e) {
    throw BitLimitExceeded("block " + std::to_string(collapse + 1) + ", " + e.what());
  }
  if (carry_failure) {
    carry_failure = "block " + std::to_string(collapse + 1) + ": " + *carry_failure;
  } else {
    progress_phase(exec.progress, "certifying: carrying the enclosures through the later blocks", 0);
    carry_failure = carry_through(*carried, bound, built.model, collapse + 1, facts.tau_checked);
  }
  float_run = bound.finish();  // while the carried tokens are alive
  add_carry_checks(cert, data, *carried, carry_failure, exec);
  cert.softmax = facts;
  cert.conclude();
}

}  // namespace

RunReport certify_construction_softmax(const Dataset& data, const Construction& built, const SoftmaxOptions& opt,
                                       const Execution& exec) {
  if (built.record.mean_collapse) return certify_mean_collapse(data, built, &opt, exec);
  std::vector<FloatRunFacts> float_run;  // one per statement format, once tau is fixed
  BackgroundReplays replays(built.model, data, built.record.collapse_block, exec);
  RunReport report;
  certify_softmax_exactly(report, data, built, opt, exec, float_run);
  Certificate& cert = report.certificate;
  if (!cert.softmax) return report;  // stopped before tau was fixed: nothing to replay
  const SoftmaxFacts& facts = *cert.softmax;
  progress_phase(exec.progress, "certifying: float64 and float32 replays", 0);
  const auto dbl = replays.finish(facts.tau_checked.convert_to<double>(), cert.lemma_p->attends);
  report.measurements.float_runs = {dbl.float64, dbl.float32};
  add_float_run_check(report, float_run, exec);
  cert.conclude();
  return report;
}

}  // namespace seqi
