// lem:float-run-sparse (Untouched tokens of a one-direction layer, proofs/float-sparse.tex): a
// layer that is the identity outside its breakpoints (lo, hi) bounds token by token only the band
// of tokens whose reading may come near them (feed_forward_bound.cpp); every other token is
// decided by a shared margin or its own, and owes its side's charge, settled when it is next
// needed. Within an epoch (consecutive layers of one direction) every token's reading along the
// direction is kept enclosed, with maxima of the boxes, errors and readings.
#include <algorithm>
#include <cmath>

#include "float_statement/propagation.hpp"

namespace seqi::float_run_detail {
namespace {

constexpr int kZoneSteps = 8;  // candidate_reach: at most this many shrinking steps

}  // namespace

// Adds to token i the charges it owes for the sparse layers [stamp_i, now) (lem:float-run-sparse).
// Requires UpwardRounding.
void Propagation::settle(std::size_t i, std::size_t now) {
  expect_upward_rounding("Propagation::settle");
  if (stamp_[i] >= now) return;
  if (pending_) {
    const double x = absolute_reading(i);
    const Charge a = right_.owed(stamp_[i], now, t_hi_[i], x), b = left_.owed(stamp_[i], now, -t_lo_[i], x);
    e_[i] = e_[i] + a.e + b.e;
    rho_[i] = rho_[i] + a.rho + b.rho;
  }
  stamp_[i] = now;
}

// >= sum_c |r_c| (|mid_ic| + rad_i) for the epoch's direction r. Requires UpwardRounding.
double Propagation::absolute_reading(std::size_t i) const {
  double x = 0;
  for (std::size_t c = 0; c < d_; ++c) x = x + epoch_.r_mag[c] * (std::fabs(mid_[i * d_ + c]) + rad_[i]);
  return x;
}

// Every token's bound as of layer `now`. Requires UpwardRounding.
void Propagation::settle_all(std::size_t now) {
  expect_upward_rounding("Propagation::settle_all");
  charges_from_ = now;  // no charge recorded before `now` is owed any more
  if (!pending_) return;
  for (std::size_t i = 0; i < e_.size(); ++i) settle(i, now);
  pending_ = false;
}

// After the exact run applied layer `layer`: the changed tokens' boxes, readings and the maxima.
// Requires UpwardRounding.
void Propagation::refresh_changed(const std::vector<std::size_t>& changed, std::size_t layer) {
  expect_upward_rounding("Propagation::refresh_changed");
  for (std::size_t i : changed) {
    refresh(i);
    stamp_[i] = std::max(stamp_[i], layer + 1);
    if (!readings_current_) continue;
    const auto [lo, hi] = reading_enclosure(&mid_[i * d_], rad_[i], epoch_.r_mid, epoch_.r_mag, epoch_.cM, epoch_.under);
    t_lo_[i] = lo;
    t_hi_[i] = hi;
    order_.moved(i, t_lo_, t_hi_, e_, rho_);
    cover_box(i);
  }
}

// Token i's reading r.x enclosed in [lo, hi] from its box (m, rad): the rounded direction
// (r_mid, r_mag) and the rounding of the sum (cM) included.
std::pair<double, double> Propagation::reading_enclosure(const double* m, double rad, const std::vector<double>& r_mid,
                                                         const std::vector<double>& r_mag, double cM,
                                                         double under) const {
  double tm = 0, tr = 0;
  for (std::size_t c = 0; c < d_; ++c) {
    tm = tm + r_mid[c] * m[c];
    tr = tr + r_mag[c] * (rad + cM * std::fabs(m[c]));
  }
  tr = tr + under;
  return {lower_difference(tm, tr), tm + tr};
}

// Makes mid_max_, rad_max_, t_min_, t_max_ cover token i's box and reading enclosure.
void Propagation::cover_box(std::size_t i) {
  for (std::size_t c = 0; c < d_; ++c) mid_max_[c] = std::max(mid_max_[c], std::fabs(mid_[i * d_ + c]));
  rad_max_ = std::max(rad_max_, rad_[i]);
  t_min_ = std::min(t_min_, t_lo_[i]);
  t_max_ = std::max(t_max_, t_hi_[i]);
}

// A new epoch of direction r at layer `layer`: every token settled, its reading error referred to
// r (as in lem:float-reading), its reading enclosed, and the maxima recomputed.
void Propagation::begin_epoch(const FeedForward<Rational>& ff, const OneDirectionForm& form, std::size_t layer,
                              const std::vector<double>& r_mid, const std::vector<double>& r_mag, double cM,
                              double under) {
  settle_all(layer);
  const ReadingLayer rl = reading_layer(ff, form, direction_);
  epoch_ = Epoch{r_mid, r_mag, cM, under};
  mid_max_.assign(d_, 0);
  rad_max_ = e_max_ = rho_max_ = 0;
  t_min_ = guard(fmt_);
  t_max_ = -guard(fmt_);
  for (std::size_t i = 0; i < e_.size(); ++i) {
    rho_[i] = rl.scale ? std::min(*rl.scale * rho_[i], rl.r_one * e_[i]) : rl.r_one * e_[i];
    const auto [lo, hi] = reading_enclosure(&mid_[i * d_], rad_[i], r_mid, r_mag, cM, under);
    t_lo_[i] = lo;
    t_hi_[i] = hi;
    cover_box(i);
    e_max_ = std::max(e_max_, e_[i]);
    rho_max_ = std::max(rho_max_, rho_[i]);
  }
  order_.rebuild(t_lo_, t_hi_, e_, rho_);
  direction_ = form.r;
  readings_current_ = true;
}

// lem:float-run-sparse for layer `layer` (identity outside (lo, hi), one direction r): with every
// token's |mid_c| <= mid_max_c, rad <= rad_max_, e <= e_max_, rho <= rho_max_, each unit's float
// pre-activation errs by at most E_k; a token whose exact reading is at least 2 max_k E_k/|slope_k|
// outside (lo, hi) has every sign shown, and its bounds grow by at most its side's charge.
// nullopt when the layer must be bounded token by token.
// rl: reading_layer(ff, form, form.r), i.e. for direction_ = form.r, which the epoch ensures.
std::optional<Propagation::SparsePlan> Propagation::sparse_plan(const FeedForward<Rational>& ff, const FFBound& f,
                                                                const OneDirectionForm& form,
                                                                const ReadingLayer& rl_form, std::size_t layer,
                                                                const std::vector<double>& r_mid,
                                                                const std::vector<double>& r_mag, double cU, double cM,
                                                                double under, double tiny_units) {
  for (const Rational& s : form.slope)
    if (s == 0) return std::nullopt;
  if (!readings_current_ || !direction_ || !equal_points(*direction_, form.r))
    begin_epoch(ff, form, layer, r_mid, r_mag, cM, under);
  SparsePlan plan{rl_form, {}, {}, {}};
  const ReadingLayer& rl = plan.reading;
  const SharedSizes sizes = shared_sizes(rl);
  UnitCharges units;
  OwnMargin own{std::vector<double>(f.w), f.u_one, rl.slope, std::vector<double>(f.w)};
  const std::optional<Rational> margin = unit_margins(f, form, rl, sizes.xs, cU, tiny_units, units, own);
  if (!margin) return std::nullopt;
  const MidRad l = mid_rad(form.lo), h = mid_rad(form.hi);
  hi_key_ = lower_difference(h.mid, h.rad);
  lo_key_ = -(l.mid + l.rad);
  for (const int side : {1, -1})
    if (!side_charge(ff, f, form, rl, side, sizes, units, side > 0 ? plan.right : plan.left)) return std::nullopt;
  // Candidates: the tokens whose reading enclosure meets [lo - 2 margin, hi + 2 margin] (the
  // others are decided by the shared margin), that zone shrunk while the errors of the tokens
  // in it allow (candidate_reach); a candidate stays out of the band when its own margin (its
  // settled e_i, rho_i) decides it (lem:float-run-sparse (1), per token).
  const double lo_down = lower_difference(l.mid, l.rad), hi_up = h.mid + h.rad;
  const double reach = candidate_reach(2 * magnitude_up(*margin), own, lo_down, hi_up, layer, sizes.x_most);
  // Each candidate is settled and tested on its own, so their order does not matter; the band
  // is sorted (fewer tokens than the candidates).
  for (std::size_t i : order_.meeting(lower_difference(lo_down, reach), hi_up + reach, t_lo_, t_hi_)) {
    settle(i, layer);
    order_.errors_changed(i, e_[i], rho_[i]);
    if (!decided_by_own_margin(i, own, lo_down, hi_up)) plan.band.push_back(i);
  }
  std::sort(plan.band.begin(), plan.band.end());
  return plan;
}

// Virtual token: per coordinate |x_c| <= xs_c for x* and xhat of every token (the epoch's maxima).
// rl: the layer's reading bounds.
Propagation::SharedSizes Propagation::shared_sizes(const ReadingLayer& rl) const {
  SharedSizes sizes{std::vector<double>(d_), 0, 0, 0};
  std::vector<double>& xs = sizes.xs;
  double &xmax = sizes.xmax, &x_most = sizes.x_most, &r_ratio = sizes.r_ratio;
  for (std::size_t c = 0; c < d_; ++c) {
    xs[c] = mid_max_[c] + rad_max_ + e_max_;
    xmax = std::max(xmax, xs[c]);
    x_most = x_most + epoch_.r_mag[c] * (mid_max_[c] + rad_max_);
    r_ratio = std::max(r_ratio, rl.r_mag[c] / epoch_.r_mag[c]);
  }
  return sizes;
}

// Per unit: E_k for every token (the margin); for a token of absolute reading X,
// R_k <= R0_k + R1_k X and its E_k <= E0_k + R1_k X (the charges), as
// sum_c |U_kc| |x_c| <= kappa_k sum_c |r_c| |x_c| with kappa_k >= |U_kc| / |r_c|.
// own: receives each unit's shared part and 1/|slope_k| (OwnMargin). Returns the shared margin
// max_k E_k / |slope_k| (exact), nullopt when some E_k is not below the guard.
std::optional<Rational> Propagation::unit_margins(const FFBound& f, const OneDirectionForm& form,
                                                  const ReadingLayer& rl, const std::vector<double>& xs, double cU,
                                                  double tiny_units, UnitCharges& units, OwnMargin& own) const {
  std::vector<double> E(f.w);
  units = UnitCharges{std::vector<double>(f.w), std::vector<double>(f.w), std::vector<double>(f.w)};
  std::vector<double> &R0 = units.R0, &R1 = units.R1, &E0 = units.E0;
  Rational margin = 0;  // max_k E_k / |slope_k|
  for (std::size_t k = 0; k < f.w; ++k) {
    double s = f.b_mag[k];
    for (std::size_t c = 0; c < f.d; ++c) s = s + f.u_mag[k * f.d + c] * xs[c];
    const double from_rho = std::min(f.u_one[k] * e_max_, rl.slope[k] * rho_max_);
    own.shared[k] = cU * s + tiny_units;
    own.inv_slope[k] = magnitude_up(1 / abs(form.slope[k]));
    E[k] = cU * s + tiny_units + from_rho;
    double kappa = 0;
    for (std::size_t c = 0; c < f.d; ++c) kappa = std::max(kappa, f.u_mag[k * f.d + c] / epoch_.r_mag[c]);
    R0[k] = cU * (f.b_mag[k] + kappa * rl.r_one * e_max_) + tiny_units;
    R1[k] = cU * kappa;
    E0[k] = R0[k] + from_rho;
    if (!(E[k] < guard(fmt_))) return std::nullopt;
    margin = std::max(margin, Rational(E[k]) / abs(form.slope[k]));
  }
  return margin;
}

// The charge of one side of a sparse layer (side 1: the right, t > hi; -1: the left, t < lo) to the
// tokens it leaves untouched, and the most it charges any of them (lem:float-run-sparse) into `out`,
// left nullopt when no unit is active on that side. False when the layer must be bounded token
// by token. Reads the keys hi_key_, lo_key_ of the layer.
bool Propagation::side_charge(const FeedForward<Rational>& ff, const FFBound& f, const OneDirectionForm& form,
                              const ReadingLayer& rl, int side, const SharedSizes& sizes, const UnitCharges& units,
                              std::optional<SideCharge>& out) const {
  const std::vector<double> &R0 = units.R0, &R1 = units.R1, &E0 = units.E0;
  const double xmax = sizes.xmax, x_most = sizes.x_most, r_ratio = sizes.r_ratio;
  std::vector<char> active(f.w);
  std::size_t live = 0;
  for (std::size_t k = 0; k < f.w; ++k) {
    // A unit of slope 0 active everywhere (b_k > 0) is not charged here: bound token by token.
    if (rl.slope_sign[k] == 0 && ff.b[static_cast<Eigen::Index>(k)] > 0) return false;
    active[k] = rl.slope_sign[k] == side ? 1 : 0;
    live += static_cast<std::size_t>(active[k]);
  }
  if (live == 0) return true;  // no unit active: fl(1 xhat + 0) = xhat
  // The side's exact Jacobian eta I + w_side r^T, w_side = sum of slope_k W_k over the active
  // units, is I: identity_outside (one_direction_form) showed w_side = 0 and eta = 1 exactly,
  // the active units being those of the side's far pattern. Errors pass with factor 1.
  if (!form.identity_outside) return false;
  const double cW = dot_rounding(live + 1, fmt_);
  // The side's key and query: right t > hi_key_, left -t > lo_key_ (= -lo rounded up).
  const double key = side > 0 ? hi_key_ : lo_key_;
  double terms = f.eta * xmax, rounded = 0, terms_r = f.eta * rl.r_one * e_max_, rounded_r = 0;
  double slope_w = 0, slope_r = 0, per_x = 0, per_x_r = f.eta * r_ratio, rounded_x = 0, rounded_x_r = 0;
  for (std::size_t k = 0; k < f.w; ++k) {
    if (!active[k]) continue;
    // p*_k = |slope_k| (q - key) + |slope_k| (key - q_k) with q = t, q_k = bp_k on the right and
    // q = -t, q_k = -bp_k on the left; key - q_k <= g.
    const MidRad bp = mid_rad(-ff.b[static_cast<Eigen::Index>(k)] / form.slope[k]);
    const double g = std::max(0.0, side > 0 ? key + (-lower_difference(bp.mid, bp.rad)) : key + (bp.mid + bp.rad));
    terms = terms + f.w_col[k] * (rl.slope[k] * g + E0[k]);
    rounded = rounded + f.w_col[k] * R0[k];
    terms_r = terms_r + rl.r_abs_w[k] * (rl.slope[k] * g + E0[k]);
    rounded_r = rounded_r + rl.r_dot_w[k] * R0[k];
    slope_w = slope_w + f.w_col[k] * rl.slope[k];
    slope_r = slope_r + rl.r_abs_w[k] * rl.slope[k];
    per_x = per_x + f.w_col[k] * R1[k];
    per_x_r = per_x_r + rl.r_abs_w[k] * R1[k];
    rounded_x = rounded_x + f.w_col[k] * R1[k];
    rounded_x_r = rounded_x_r + rl.r_dot_w[k] * R1[k];
  }
  const double tiny_live = static_cast<double>(live + 1) * fmt_.tiny;
  const AffineCharge charge{{cW * terms + rounded + tiny_live, cW * terms_r + rounded_r + tiny_live * rl.r_one},
                            {cW * slope_w, cW * slope_r},
                            {cW * per_x + rounded_x, cW * per_x_r + rounded_x_r}};
  // The most any token on this side is charged: at q = t_max, resp. -t_min, and X largest.
  const double reach = std::max(0.0, (side > 0 ? t_max_ : -t_min_) + (-key));
  const Charge most{charge.alpha.e + charge.beta.e * reach + charge.gamma.e * x_most,
                    charge.alpha.rho + charge.beta.rho * reach + charge.gamma.rho * x_most};
  if (!(most.e < guard(fmt_) && most.rho < guard(fmt_))) return false;
  out = SideCharge{charge, most};
  return true;
}

// True when token i (settled) reads at least 2 mu_i outside [lo_down, hi_up], a lower bound of
// the hull's left end and an upper bound of its right end, mu_i = max_k E_k(i) / |slope_k|:
// then every unit of token i is decided as in the exact run. Requires UpwardRounding.
bool Propagation::decided_by_own_margin(std::size_t i, const OwnMargin& own, double lo_down, double hi_up) const {
  const double mu = own.mu(e_[i], rho_[i]);
  if (!(mu < guard(fmt_))) return false;
  return t_lo_[i] > hi_up + 2 * mu || t_hi_[i] < lower_difference(lo_down, 2 * mu);
}

// The candidate zone [lo_down - reach, hi_up + reach], shrunk from `reach` (twice the shared
// margin): every token meeting the zone has e_i <= E and rho_i <= P, its settled bounds (the
// largest over the zone, EnclosureOrder) plus the most it can owe (the charges since the last
// full settlement at the zone's farthest readings and the largest absolute reading x_most), so
// its own margin is at most mu(E, P); a token of the zone outside the zone of 2 mu(E, P) is then
// decided by lem:float-run-sparse (1), and the zone shrinks to that. Requires UpwardRounding.
double Propagation::candidate_reach(double reach, const OwnMargin& own, double lo_down, double hi_up, std::size_t layer,
                                    double x_most) {
  expect_upward_rounding("Propagation::candidate_reach");
  for (int step = 0; step < kZoneSteps; ++step) {
    const auto z = order_.errors_meeting(lower_difference(lo_down, reach), hi_up + reach, t_lo_, t_hi_, e_, rho_);
    if (std::isnan(z.e) || std::isnan(z.rho) || std::isnan(z.lo) || std::isnan(z.hi)) break;
    Charge owed{0, 0};
    if (pending_ && !(z.lo > z.hi)) {  // z.lo > z.hi: no token meets the zone
      const Charge a = right_.owed(charges_from_, layer, z.hi, x_most), b = left_.owed(charges_from_, layer, -z.lo, x_most);
      owed = {a.e + b.e, a.rho + b.rho};
    }
    const double e = z.e + owed.e, rho = z.rho + owed.rho;
    const double shrunk = 2 * own.mu(e, rho);
    if (!(shrunk < reach)) break;  // NaN included
    const bool slow = !(shrunk < reach / 2);
    reach = shrunk;
    if (slow) break;
  }
  return reach;
}

// After the band of a sparse layer is bounded: the others' charges recorded, the maxima grown.
void Propagation::close_sparse_layer(const SparsePlan& plan, std::size_t layer, std::size_t w) {
  const std::size_t lazy = e_.size() - plan.band.size();
  const std::size_t lazy_weight = total_weight() - weight_of(plan.band);
  facts_.decisions += lazy_weight * w;  // every unit of every other token: sign shown by the margin
  facts_.tokens_charged += lazy_weight;
  double e_max = 0, rho_max = 0;
  if (lazy > 0) {
    e_max = e_max_;
    rho_max = rho_max_;
    for (const auto& side : {plan.right, plan.left}) {
      if (!side) continue;
      e_max = std::max(e_max, e_max_ + side->most.e);
      rho_max = std::max(rho_max, rho_max_ + side->most.rho);
    }
  }
  if (lazy > 0 && plan.right) right_.record(layer, hi_key_, plan.right->charge);
  if (lazy > 0 && plan.left) left_.record(layer, lo_key_, plan.left->charge);
  pending_ = pending_ || (lazy > 0 && (plan.right || plan.left));
  for (std::size_t i : plan.band) {
    order_.errors_changed(i, e_[i], rho_[i]);
    e_max = std::max(e_max, e_[i]);
    rho_max = std::max(rho_max, rho_[i]);
    stamp_[i] = layer + 1;
  }
  e_max_ = e_max;
  rho_max_ = rho_max;
}

}  // namespace seqi::float_run_detail
