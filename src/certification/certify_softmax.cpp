// Softmax certification (Thm 1.8): everything but the collapse is exact (lem:mean-shift);
// the collapse is enclosed on the exact direction v (lem:softmax-enclosure) and carried
// exactly through the flat hats (lem:direction-carrying); tau* is certified (lem:tau-star).
#include <algorithm>

#include "seqi/forward/carried_forward.hpp"
#include "seqi/certification/certificate_checks.hpp"
#include "seqi/certification/construction_checks.hpp"
#include "seqi/certification/double_cross_check.hpp"
#include "seqi/certification/float_run_check.hpp"
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

// Carries the tokens through blocks [from, end) (attention, then feed-forward); returns a
// failure naming block, sequence and token.
std::optional<std::string> carry_through(CarriedForward& carried, const Transformer<Rational>& model,
                                         std::size_t from, bool skip_first_attention, const Rational& tau) {
  for (std::size_t b = from; b < model.blocks.size(); ++b) {
    try {
      if (!(b == from && skip_first_attention))
        if (auto f = carried.apply_attention(model.blocks[b].sa, tau)) return "block " + std::to_string(b + 1) + ": " + *f;
      if (auto f = carried.apply_feed_forward(model.blocks[b].ff)) return "block " + std::to_string(b + 1) + ": " + *f;
    } catch (const BitLimitExceeded& e) {
      throw BitLimitExceeded("block " + std::to_string(b + 1) + ", " + e.what());
    }
  }
  return std::nullopt;
}

// Final tokens as exact points; a token still carrying an enclosure is reported.
std::optional<std::string> exact_outputs(const CarriedForward& carried, std::vector<std::vector<Point>>& outputs) {
  const auto& t = carried.tokens();
  for (std::size_t j = 0; j + 1 < carried.begin().size(); ++j) {
    outputs.emplace_back();
    for (std::size_t i = carried.begin()[j]; i < carried.begin()[j + 1]; ++i) {
      if (!t[i].is_exact()) return carried.where(i) + ": output is still an enclosure, not an exact point";
      outputs.back().push_back(t[i].p);
    }
  }
  return std::nullopt;
}

// Midpoints p + w (lo + hi)/2 of the enclosures (for figures).
TokenState enclosure_centres(const CarriedForward& carried) {
  TokenState s;
  s.begin = carried.begin();
  for (const auto& t : carried.tokens())
    s.tokens.push_back(t.is_exact() ? t.p : Point(t.p + t.w * ((t.lo + t.hi) / 2)));
  return s;
}

void add_carry_checks(Certificate& cert, const Dataset& data, CarriedForward& carried,
                      const std::optional<std::string>& carry_failure, const Execution& exec = {}) {
  std::vector<std::vector<Point>> outputs;
  auto failure = carry_failure ? carry_failure : exact_outputs(carried, outputs);
  if (!failure) record_phase_end(cert, enclosure_centres(carried), "interpolation");
  cert.add({"softmax enclosures carried exactly through every later layer", "lem:direction-carrying", !failure, true,
            failure ? *failure : "every output is an exact rational point"});
  if (!failure) add_interpolation_check(cert, data, outputs, exec);
}

// Everything but the float runs: the exact pass, tau*, the collapse enclosures and their carry
// to the output. cert.softmax is set when tau was fixed. The exact and the carried token states
// are freed on return, before the float runs make their own copies.
Certificate certify_softmax_exactly(const Dataset& data, const Construction& built, const SoftmaxOptions& opt,
                                    const Execution& exec) {
  Certificate cert;
  cert.setting = Setting::softmax;
  cert.record = built.record;
  const std::size_t collapse = built.record.collapse_block;
  cert.conditioning = weight_conditioning(built.model, collapse, exec.threads);
  cert.counts = count_model(built.model, data.pairs.size(), data.sum_m(), cert.conditioning.norm_sq);
  add_shape_checks(cert, true);
  add_block_count_checks(cert, data, built);
  const auto inexact = first_inexact_attention(built.model, collapse);
  cert.add({"attention layers other than the collapse are exact under softmax (A = 0 or identity)", "lem:mean-shift",
            !inexact, true, inexact ? "block " + std::to_string(*inexact + 1) + " is not" : "all"});

  // Everything below evaluates the collapse through the recorded v and a: establish that first.
  if (!add_collapse_layer_check(cert, built)) return cert.conclude(), cert;

  ExactForward pass(inputs_of(data, exec.threads), exec.threads, exec.sharding);
  record_phase_end(cert, pass.state(), "input", exec.threads);
  progress_phase(exec.progress, "certifying: exact forward pass to the collapse (blocks)", collapse);
  run_exact_blocks(cert, pass, built.model, 0, collapse, exec);
  add_placement_checks(cert, pass.state(), built, exec.threads);
  add_collapse_and_order_checks(cert, data, built);
  add_spread_slots_check(cert, data, built);
  add_places_left_check(cert, built);
  progress_phase(exec.progress, "certifying: Lemma P (sequences)", data.pairs.size());
  add_lemma_p_check(cert, pass.state(), built, opt.brute, exec);
  add_construction_margins(cert.conditioning, data, built.record, pass.state(), *cert.lemma_p);
  cert.stats = pass.stats();
  if (!cert.lemma_p->ok || inexact) return cert.conclude(), cert;

  const LemmaPResult& lp = *cert.lemma_p;
  const Rational& df = built.record.interpolation.df;
  SoftmaxFacts facts;
  facts.flat_halfwidth = df;
  facts.precision = opt.precision_bits ? opt.precision_bits : default_precision(lp.spread, df);
  std::vector<std::size_t> n;
  for (const auto& p : data.pairs) n.push_back(p.input.size());
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

  // Collapse: the O(1) bound of lem:softmax-enclosure per sequence, per-token enclosures where it is too weak.
  const auto& sa = built.model.blocks[collapse].sa;  // = (rho, alpha I, v a^T), checked above
  const auto& v = built.record.interpolation.v;
  const auto& a = built.record.interpolation.a;
  CarriedForward carried(pass.state(), facts.precision);
  const auto& X = pass.state();
  std::optional<std::string> collapse_failure;
  progress_phase(exec.progress, "certifying: softmax collapse enclosures (sequences)", X.sequences());
  // Per sequence (on exec.threads threads): the O(1) radius, or nullopt where it exceeds df.
  std::vector<std::optional<Rational>> radii(X.sequences());
  for_each_index_shared(
      X.sequences(), exec,
      [&](std::size_t j) {
        progress_advance(exec.progress);
        if (opt.brute) return;
        Rational r = lp.margin[j] ? collapse_error_bound(n[j], *lp.margin[j], lp.spread[j], facts.tau_checked,
                                                         facts.precision)
                                  : Rational(0);
        if (r <= df) radii[j] = std::move(r);
      },
      [&](ByteWriter& w, std::size_t j) { w.put(radii[j]); },
      [&](ByteReader& r, std::size_t j) { radii[j] = r.optional_rational(); });
  for (std::size_t j = 0; j < X.sequences(); ++j) {
    const std::optional<Rational>& radius = radii[j];
    if (!radius) {
      ++facts.sequences_refined;
      if (auto f = carried.apply_attention_to(sa, facts.tau_checked, j); f && !collapse_failure)
        collapse_failure = "block " + std::to_string(collapse + 1) + ": " + *f;
      continue;
    }
    for (std::size_t i = X.begin[j]; i < X.begin[j + 1]; ++i) {
      const Rational z = dot(a, X.tokens[lp.attends[i]]);
      carried.set_token(i, CarriedToken{X.tokens[i] * sa.rho, v, z - *radius, z + *radius});
    }
  }
  cert.snapshots.push_back(snapshot_of(enclosure_centres(carried), "collapse"));
  // Each enclosure must lie in the flat [z - df, z + df] of its leader's value z (lem:softmax-enclosure).
  std::optional<std::string> outside;
  facts.max_enclosure_radius = 0;
  for (std::size_t i = 0; i < X.tokens.size(); ++i) {
    const auto& t = carried.tokens()[i];
    const Rational z = dot(a, X.tokens[lp.attends[i]]);
    const Rational deviation = std::max(z - t.lo, t.hi - z);
    facts.max_enclosure_radius = std::max(facts.max_enclosure_radius, deviation);
    if (deviation > df && !outside)
      outside = carried.where(i) + ": its collapse value lies in [" + approx_decimal(t.lo, 12) + ", " +
                approx_decimal(t.hi, 12) + "], which leaves the flat [z - df, z + df] around its leader's z = " +
                approx_decimal(z, 12) + " (df = " + approx_decimal(df) + ")";
  }
  cert.add({"every collapse enclosure lies inside its flat at tau", "lem:softmax-enclosure", !outside, true,
            outside ? *outside : "max distance to the leader's value " + approx_decimal(facts.max_enclosure_radius) +
                                     " <= df = " + approx_decimal(df)});
  (void)pass.release_state();  // the carry needs only `carried`: the exact state goes first (X dangles)
  progress_phase(exec.progress, "certifying: carrying the enclosures through the later blocks", 0);
  add_carry_checks(cert, data, carried,
                   collapse_failure ? collapse_failure
                                    : carry_through(carried, built.model, collapse, true, facts.tau_checked),
                   exec);
  cert.softmax = facts;
  cert.conclude();
  return cert;
}

}  // namespace

Certificate certify_construction_softmax(const Dataset& data, const Construction& built, const SoftmaxOptions& opt,
                                         const Execution& exec) {
  Certificate cert = certify_softmax_exactly(data, built, opt, exec);
  if (!cert.softmax) return cert;  // stopped before tau was fixed: nothing to replay
  const SoftmaxFacts& facts = *cert.softmax;
  progress_phase(exec.progress, "certifying: float64 and float32 replays", 0);
  const auto dbl = double_cross_check(built.model, data, facts.tau_checked.convert_to<double>(),
                                      built.record.collapse_block, cert.lemma_p->attends, exec.threads);
  cert.conditioning.float_runs = {dbl.float64, dbl.float32};
  progress_phase(exec.progress, "certifying: float64 run of the model", 0);
  add_float_run_check(cert, data, built.model, Setting::softmax, exec.threads, facts.tau_checked, facts.precision);
  cert.conclude();
  return cert;
}

}  // namespace seqi
