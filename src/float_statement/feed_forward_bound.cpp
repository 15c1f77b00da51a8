// lem:float-ff (Feed-forward step, proofs/float-run.tex) with the reading errors of
// lem:float-reading: a feed-forward layer bounded token by token, each unit's sign shown by its
// pre-activation's error bound (or by the exact pre-activation), the error propagated through the
// activation pattern's exact Jacobian. A sparse layer (lem:float-run-sparse) bounds only its band
// this way; its plan and the charges of the other tokens are in sparse_feed_forward_bound.cpp.
#include <algorithm>
#include <cmath>

#include "float_statement/propagation.hpp"
#include "seqi/core/parallel.hpp"

namespace seqi::float_run_detail {

// Feed-forward layer `layer` (lem:float-ff): the tokens whose exact value may change are
// appended to `changed`. A layer that is the identity outside its breakpoints is bounded
// token by token only on a band around them (lem:float-run-sparse); the other tokens owe
// charges, settled when they are next needed.
// prep: prepare_layer(ff).
std::optional<std::string> Propagation::feed_forward(const FeedForward<Rational>& ff, const LayerPrep& prep,
                                                     std::size_t layer, std::vector<std::size_t>& changed) {
  if (prep.out_of_range[slot_]) return prep.out_of_range[slot_];
  FFLayer L = ff_layer(ff, prep);
  const FFBound& f = L.f;
  std::optional<SparsePlan> plan;
  if (L.form)
    plan = sparse_plan(ff, f, *L.form, *prep.sparse_reading, layer, L.r_mid, L.r_mag, L.cU, L.cM, L.under,
                       L.tiny_units);
  if (!plan) {
    settle_all(layer);
    readings_current_ = false;
  }
  L.sparse = plan.has_value();
  std::vector<char> maybe_changed(plan ? 0 : e_.size(), L.form ? 0 : 1);
  // One direction (U_k = slope_k r^T): reading errors rho (lem:float-reading).
  if (plan)
    L.reading = plan->reading;
  else if (prep.one)
    L.reading = reading_layer(ff, *prep.one, direction_);
  auto one_token = [&](std::size_t i, TokenScratch& t) { return bound_token(L, i, t, maybe_changed); };
  std::vector<std::size_t> all;
  if (!plan) {
    all.resize(e_.size());
    for (std::size_t i = 0; i < all.size(); ++i) all[i] = i;
  }
  const std::vector<std::size_t>& tokens = plan ? plan->band : all;
  auto failure = for_each_token(ff, prep.one, f.w, tokens, one_token);
  facts_.tokens_bounded += weight_of(tokens);
  if (L.reading)
    direction_ = L.reading->r;
  else
    direction_.reset();
  if (failure) return failure;
  if (!plan) {
    for (std::size_t i = 0; i < maybe_changed.size(); ++i)
      if (maybe_changed[i]) changed.push_back(i);
    return std::nullopt;
  }
  close_sparse_layer(*plan, layer, f.w);
  // The layer is the identity outside (lo, hi): a band token whose reading enclosure misses
  // [lo, hi] keeps its exact value, hence its box.
  for (std::size_t i : plan->band)
    if (!(t_hi_[i] < L.lo || t_lo_[i] > L.hi)) changed.push_back(i);
  return std::nullopt;
}

// The layer's rounded breakpoints and direction (when it is the identity outside them) and the
// rounding constants of its pre-activations (lem:float-ff); no reading yet, not sparse.
Propagation::FFLayer Propagation::ff_layer(const FeedForward<Rational>& ff, const LayerPrep& prep) const {
  const FFBound& f = prep.f;
  const OneDirectionForm* form = prep.one && prep.one->identity_outside ? &*prep.one : nullptr;
  FFLayer L{ff, f, form, 0, 0, std::vector<double>(d_), std::vector<double>(d_), 0, 0, 0, 0, std::nullopt, false};
  if (form) {
    const MidRad l = mid_rad(form->lo), h = mid_rad(form->hi);
    L.lo = lower_difference(l.mid, l.rad);
    L.hi = h.mid + h.rad;
    for (std::size_t c = 0; c < d_; ++c) {
      const MidRad rc = mid_rad(form->r[static_cast<Eigen::Index>(c)]);
      L.r_mid[c] = rc.mid;
      L.r_mag[c] = std::fabs(rc.mid) + rc.rad;
    }
  }
  // A pre-activation sums f.terms nonzero summands (zero weights give exact zeros, lem:float-dot).
  L.cU = dot_rounding(f.terms, fmt_);
  L.cM = gamma_up(f.terms, 0x1p-52) * (1 + 0x1p-51) + 0x1p-51;
  L.under = static_cast<double>(f.terms) * 0x1p-1072;
  L.tiny_units = static_cast<double>(f.terms) * 4 * fmt_.tiny;
  return L;
}

// Token i's new error bound (writes e_[i], rho_[i] and maybe_changed[i] only); counts into t.
std::optional<std::string> Propagation::bound_token(const FFLayer& L, std::size_t i, TokenScratch& t,
                                                    std::vector<char>& maybe_changed) {
  const FFBound& f = L.f;
  const std::optional<ReadingLayer>& reading = L.reading;
  const double* m = &mid_[i * d_];
  const double e = e_[i], r = rad_[i];
  double xmax = 0;
  for (std::size_t c = 0; c < d_; ++c) xmax = std::max(xmax, std::fabs(m[c]) + r + e);
  // >= |r.(xhat - x*)| for this layer's direction r (lem:float-reading)
  double rho = 0;
  if (reading) rho = reading->scale ? std::min(*reading->scale * rho_[i], reading->r_one * e) : reading->r_one * e;
  std::size_t live_units = 0;
  if (auto failure = unit_signs(L, i, m, r, e, rho, t, live_units)) return failure;
  if (L.form && !L.sparse) {
    const auto [t_lo, t_hi] = reading_enclosure(m, r, L.r_mid, L.r_mag, L.cM, L.under);
    maybe_changed[i] = !(t_hi < L.lo || t_lo > L.hi);
  }
  if (live_units == 0 && f.eta_one) {  // fl(1 * xhat + 0) = xhat: e unchanged
    rho_[i] = rho;
    return std::nullopt;
  }
  const double cW = dot_rounding(live_units + 1, fmt_);
  // Active units propagate the input error through the pattern's exact Jacobian eta I + w_P r^T
  // (one direction: |eta| e + |w_P| rho); kinks (p* = 0) contribute |What_k ahat_k| <= (1 + u) |W_k| E_k.
  const PatternBound pattern = t.jacobian(t.active);
  double terms = f.eta * xmax, propagated = pattern.jacobian * e;
  if (reading) propagated = std::min(propagated, f.eta * e + pattern.w_inf * rho);
  for (std::size_t k = 0; k < f.w; ++k) {
    if (!t.live[k]) continue;
    terms = terms + f.w_col[k] * (t.act[k] + t.E[k]);
    propagated = propagated + f.w_col[k] * (t.active[k] ? t.R[k] : (1 + fmt_.u) * t.E[k]);
  }
  // Kinks through the sign of r.(xhat - x*) (lem:float-reading (5)): the patterns P u K_+ and
  // P u K_- (kinks with positive, resp. negative slope), each kink erring by R_k only.
  std::optional<PatternBound> kinks;
  if (reading) {
    t.plus = t.active, t.minus = t.active;
    bool any = false;
    for (std::size_t k = 0; k < f.w; ++k)
      if (t.live[k] && !t.active[k]) {
        any = true;
        (reading->slope_sign[k] > 0 ? t.plus : t.minus)[k] = reading->slope_sign[k] != 0;
      }
    if (any) {
      const PatternBound a = t.jacobian(t.plus), b = t.jacobian(t.minus);
      kinks = PatternBound{0, std::max(a.w_inf, b.w_inf), std::max(a.gain, b.gain)};
      double alt = f.eta * e + kinks->w_inf * rho;
      for (std::size_t k = 0; k < f.w; ++k)
        if (t.live[k]) alt = alt + f.w_col[k] * t.R[k];
      propagated = std::min(propagated, alt);
    }
  }
  e_[i] = cW * terms + propagated + static_cast<double>(live_units + 1) * fmt_.tiny;
  if (!(e_[i] < guard(fmt_))) return where(i) + ": the error bound exceeds " + guard_text(fmt_);
  if (reading)
    rho_[i] = std::min(reading->r_one * e_[i], reading_error(*reading, f, t, m, r, e, rho, pattern.gain, kinks, live_units));
  return std::nullopt;
}

// Token i's units (box (m, r), error e, reading error rho): each pre-activation's rounding R_k
// and error E_k, its sign shown (by the float bound or else the exact pre-activation), its
// activation bound; live_units counts the units that are not shown negative. Counts the
// decisions and kinks into t; a failure when a sign is not shown.
std::optional<std::string> Propagation::unit_signs(const FFLayer& L, std::size_t i, const double* m, double r, double e,
                                                   double rho, TokenScratch& t, std::size_t& live_units) {
  const FFBound& f = L.f;
  const std::optional<ReadingLayer>& reading = L.reading;
  for (std::size_t k = 0; k < f.w; ++k) {
    const double* uk = &f.u_mid[k * f.d];
    const double* um = &f.u_mag[k * f.d];
    double s = f.b_mag[k], sm = f.b_mag[k], pm = f.b_mid[k];
    for (std::size_t c = 0; c < f.d; ++c) {
      s = s + um[c] * (std::fabs(m[c]) + r + e);
      sm = sm + um[c] * std::fabs(m[c]);
      pm = pm + uk[c] * m[c];
    }
    // rounding: |phat_k - p*_k - U_k (xhat - x*)|; a zero row computes fl(0 + bhat_k) = bhat_k
    t.R[k] = f.zero_row[k] ? fmt_.u * f.b_mag[k] : L.cU * s + L.tiny_units;
    t.E[k] = t.R[k] + (reading ? std::min(f.u_one[k] * e, reading->slope[k] * rho) : f.u_one[k] * e);  // |phat_k - p*_k|
    const double pr = f.u_one[k] * r + L.cM * sm + L.under;      // |p*_k - pm| over the box
    if (!(t.E[k] < guard(fmt_) && pr < guard(fmt_))) return where(i) + ": the error bound exceeds " + guard_text(fmt_);
    int sign = 0;  // sign of p*_k: +1, -1, or 0 (exactly zero: a kink)
    if (std::fabs(pm) > pr + t.E[k]) {
      sign = pm > 0 ? 1 : -1;
    } else {
      const auto kk = static_cast<Eigen::Index>(k);
      const auto [plo, phi] = ref_.affine_range(i, Point(L.ff.U.row(kk).transpose()), L.ff.b[kk]);
      const Rational bound(t.E[k]);
      if (plo == 0 && phi == 0)
        sign = 0;
      else if (plo > bound)
        sign = 1;
      else if (phi < -bound)
        sign = -1;
      else
        return where(i) + ": the sign of unit " + std::to_string(k + 1) + " is not shown: its exact " +
               "pre-activation lies in [" + approx_decimal(plo, 3) + ", " + approx_decimal(phi, 3) +
               "], the float error bound is " + approx_decimal(bound, 3);
    }
    (sign == 0 ? t.kinks : t.decisions) += weight(i);
    t.live[k] = sign >= 0;
    t.active[k] = sign > 0;
    t.act[k] = sign > 0 ? std::fabs(pm) + pr : 0;  // >= relu(p*_k)
    live_units += t.live[k];
  }
  return std::nullopt;
}

// >= |r.(yhat - y*)| after a one-direction layer (lem:float-reading): the rounding of the output
// sums read by r, the input's reading error times |eta + r.w_P|, and the units' own rounding
// (active units) or value (kinks) through |r.W_k|. m, r, e: token's box and error; rho its reading error.
double Propagation::reading_error(const ReadingLayer& l, const FFBound& f, const TokenScratch& t, const double* m,
                                  double r, double e, double rho, double gain, const std::optional<PatternBound>& kinks,
                                  std::size_t live_units) const {
  const double cW = dot_rounding(live_units + 1, fmt_);
  double x_read = 0;  // >= sum_c |r_c| max(|xhat_c|, |x*_c|)
  for (std::size_t c = 0; c < f.d; ++c) x_read = x_read + l.r_mag[c] * (std::fabs(m[c]) + r + e);
  double terms = f.eta * x_read, propagated = gain * rho, alt = kinks ? kinks->gain * rho : 0;
  for (std::size_t k = 0; k < f.w; ++k) {
    if (!t.live[k]) continue;
    terms = terms + l.r_abs_w[k] * (t.act[k] + t.E[k]);
    propagated = propagated + l.r_dot_w[k] * (t.active[k] ? t.R[k] : (1 + fmt_.u) * t.E[k]);
    alt = alt + l.r_dot_w[k] * t.R[k];
  }
  if (kinks) propagated = std::min(propagated, alt);
  return cW * terms + propagated + static_cast<double>(live_units + 1) * fmt_.tiny * l.r_one;
}

// Runs one_token(i, scratch) on every listed token, in one contiguous chunk per thread (at most
// threads_ chunks of at least 1024 tokens; each under UpwardRounding with its own scratch,
// built once per chunk); adds the decisions counted up to the first failing token and returns
// that token's failure: the result of a sequential loop, for any threads_.
template <class OneToken>
std::optional<std::string> Propagation::for_each_token(const FeedForward<Rational>& ff,
                                                       const std::optional<OneDirectionForm>& form, std::size_t w,
                                                       const std::vector<std::size_t>& tokens, OneToken& one_token) {
  constexpr std::size_t kMinChunk = 1024;
  const std::size_t chunks = std::max<std::size_t>(1, std::min<std::size_t>(threads_, tokens.size() / kMinChunk));
  const std::size_t size = (tokens.size() + chunks - 1) / chunks;
  struct ChunkResult {
    std::size_t decisions = 0, kinks = 0;
    std::optional<std::string> failure;
  };
  std::vector<ChunkResult> results(chunks);
  for_each_index(results.size(), threads_, [&](std::size_t c) {
    UpwardRounding up;
    TokenScratch t(ff, form, w);
    const std::size_t end = std::min(tokens.size(), (c + 1) * size);
    for (std::size_t k = c * size; k < end && !results[c].failure; ++k) results[c].failure = one_token(tokens[k], t);
    results[c].decisions = t.decisions;
    results[c].kinks = t.kinks;
  });
  for (auto& r : results) {
    facts_.decisions += r.decisions;
    facts_.kinks += r.kinks;
    if (r.failure) return std::move(r.failure);
  }
  return std::nullopt;
}

}  // namespace seqi::float_run_detail
