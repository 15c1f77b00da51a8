// Running-error analysis of the float64 run (lem:float-run and its parts in proofs/float-run.tex).
// Per token i: a box (mid_i, rad_i) containing the exact value x*_i and an error radius e_i with
// |xhat_ic - x*_ic| <= e_i for every coordinate c. All bounds are computed under UpwardRounding
// from nonnegative terms with + and * only, so each computed double is >= the real bound.
#include "seqi/certification/float_run.hpp"
#include "seqi/certification/score_enclosure.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <map>
#include <stdexcept>

#include "seqi/certification/enclosure_order.hpp"
#include "seqi/certification/float_reading.hpp"
#include "seqi/certification/float_reference.hpp"
#include "seqi/certification/layer_charges.hpp"
#include "seqi/core/chunks.hpp"
#include "seqi/core/parallel.hpp"
#include "seqi/forward/one_direction_ff.hpp"
#include "seqi/numbers/interval.hpp"
#include "seqi/numbers/upward.hpp"

namespace seqi {
namespace {

constexpr double u = kUnitRoundoff;
constexpr double tiny = kSubnormalMin;
constexpr double kGuard = 0x1p1000;  // every magnitude bound stays below: no overflow anywhere
constexpr int kZoneSteps = 8;        // candidate_reach: at most this many shrinking steps

// w = 0 or 2^-1000 <= |w| <= 2^1000 (normal range: |fl(w) - w| <= u |w|).
bool in_relative_range(const Rational& w) {
  if (w == 0) return true;
  const double m = magnitude_up(w);
  return std::isfinite(m) && m <= 0x1p1000 && m >= 0x1p-999;
}

// nullopt when in_relative_range(w), else an explanation naming `what`.
template <class What>
std::optional<std::string> out_of_range(const Rational& w, What what) {
  if (in_relative_range(w)) return std::nullopt;
  return std::string(what) + " = " + approx_decimal(w) +
         " is outside [2^-1000, 2^1000]: its float64 rounding is not relative";
}

// Magnitudes of alpha I + sum_t p_t q_t^T (lem:float-structured).
struct StructuredBound {
  bool zero = true;
  double alpha = 0;
  std::vector<double> p_inf, q_one, p_one;  // |p_t|_inf, |q_t|_1, |p_t|_1 (upper bounds)
};

struct Applied {
  double mag = 0;  // >= |M x*|_inf
  double err = 0;  // >= |fl(Mhat xhat) - M x*|_inf
};

StructuredBound structured_bound(const StructuredMatrix<Rational>& m) {
  StructuredBound s{m.is_zero(), magnitude_up(m.alpha), {}, {}, {}};
  for (const auto& t : m.terms) {
    double pi = 0, q1 = 0, p1 = 0;
    for (Eigen::Index c = 0; c < t.p.size(); ++c) {
      pi = std::max(pi, magnitude_up(t.p[c]));
      p1 = p1 + magnitude_up(t.p[c]);
    }
    for (Eigen::Index c = 0; c < t.q.size(); ++c) q1 = q1 + magnitude_up(t.q[c]);
    s.p_inf.push_back(pi);
    s.q_one.push_back(q1);
    s.p_one.push_back(p1);
  }
  return s;
}

std::optional<std::string> structured_range(const StructuredMatrix<Rational>& m, const std::string& what) {
  if (auto f = out_of_range(m.alpha, what + " alpha")) return f;
  for (const auto& t : m.terms)
    for (Eigen::Index c = 0; c < t.p.size(); ++c) {
      if (auto f = out_of_range(t.p[c], what + " p")) return f;
      if (auto f = out_of_range(t.q[c], what + " q")) return f;
    }
  return std::nullopt;
}

// x: bound on |xhat|_inf and |x*|_inf; ex: bound on |xhat - x*|_inf; d: dimension.
Applied apply_bound(const StructuredBound& s, double x, double ex, std::size_t d) {
  if (s.zero) return {0, 0};
  const std::size_t k = s.p_inf.size();
  const double cq = gamma_up(d) * (1 + u) + u, cy = gamma_up(k + 1) * (1 + u) + u;
  double terms = s.alpha * x, propagated = s.alpha * ex, mag = s.alpha * x;
  for (std::size_t t = 0; t < k; ++t) {
    const double ec = cq * s.q_one[t] * x + s.q_one[t] * ex + static_cast<double>(d) * tiny;
    const double cmag = s.q_one[t] * x;
    terms = terms + s.p_inf[t] * (cmag + ec);
    propagated = propagated + s.p_inf[t] * ec;
    mag = mag + s.p_inf[t] * cmag;
  }
  return {mag, cy * terms + propagated + static_cast<double>(k + 1) * tiny};
}

// Per-layer magnitudes of a feed-forward layer (lem:float-ff).
struct FFBound {
  std::size_t w = 0, d = 0;
  std::vector<double> u_mid, u_mag, u_one, b_mid, b_mag, w_col;
  std::vector<char> zero_row;  // U_k = 0 exactly
  double eta = 0;
  bool eta_one = false;
};

FFBound ff_bound(const FeedForward<Rational>& ff) {
  FFBound f;
  f.w = ff.width();
  f.d = static_cast<std::size_t>(ff.U.cols());
  f.eta = magnitude_up(ff.eta);
  f.eta_one = ff.eta == 1;
  for (std::size_t k = 0; k < f.w; ++k) {
    const auto kk = static_cast<Eigen::Index>(k);
    double one = 0, col = 0;
    for (std::size_t c = 0; c < f.d; ++c) {
      const MidRad m = mid_rad(ff.U(kk, static_cast<Eigen::Index>(c)));
      f.u_mid.push_back(m.mid);
      f.u_mag.push_back(std::fabs(m.mid) + m.rad);
      one = one + f.u_mag.back();
      col = std::max(col, magnitude_up(ff.W(static_cast<Eigen::Index>(c), kk)));
    }
    const MidRad b = mid_rad(ff.b[kk]);
    f.b_mid.push_back(b.mid);
    f.b_mag.push_back(std::fabs(b.mid) + b.rad);
    f.u_one.push_back(one);
    bool zero = true;
    for (std::size_t c = 0; c < f.d; ++c) zero = zero && ff.U(kk, static_cast<Eigen::Index>(c)) == 0;
    f.zero_row.push_back(zero);
    f.w_col.push_back(col);
  }
  return f;
}

std::optional<std::string> ff_range(const FeedForward<Rational>& ff) {
  if (auto f = out_of_range(ff.eta, "eta")) return f;
  for (Eigen::Index i = 0; i < ff.U.size(); ++i)
    if (auto f = out_of_range(ff.U.data()[i], "an entry of U")) return f;
  for (Eigen::Index i = 0; i < ff.W.size(); ++i)
    if (auto f = out_of_range(ff.W.data()[i], "an entry of W")) return f;
  for (Eigen::Index i = 0; i < ff.b.size(); ++i)
    if (auto f = out_of_range(ff.b[i], "an entry of b")) return f;
  return std::nullopt;
}

// What the bound needs of a feed-forward layer that depends on the layer alone; prepared ahead
// for a batch of layers on the threads (LayerPreps). Requires UpwardRounding.
struct LayerPrep {
  std::optional<std::string> out_of_range;  // a weight outside the range of lem:float-run
  FFBound f;
  std::optional<OneDirectionForm> one;  // one_direction_form(ff)
  // reading_layer(ff, *one, one->r) when one->identity_outside: a sparse layer's reading bounds
  // (its direction is then the current one, lem:float-run-sparse)
  std::optional<ReadingLayer> sparse_reading;
};

LayerPrep prepare_layer(const FeedForward<Rational>& ff) {
  LayerPrep p;
  p.out_of_range = ff_range(ff);
  if (p.out_of_range) return p;
  p.f = ff_bound(ff);
  p.one = one_direction_form(ff);
  if (p.one && p.one->identity_outside) p.sparse_reading = reading_layer(ff, *p.one, p.one->r);
  return p;
}

// LayerPrep of the blocks of a model, in batches computed on `threads` threads as the run
// reaches them (a batch at a time: memory O(batch), not O(blocks)). After forms_only(), later
// batches hold only `one`: what the exact run still needs once the bound has stopped.
class LayerPreps {
 public:
  LayerPreps(const Transformer<Rational>& model, unsigned threads) : model_(model), threads_(threads) {}
  const LayerPrep& at(std::size_t b) {
    if (b < first_ || b >= first_ + preps_.size()) fill_from(b);
    return preps_[b - first_];
  }
  void forms_only() { forms_only_ = true; }

 private:
  void fill_from(std::size_t b) {
    const std::size_t n = std::min(kBatch, model_.blocks.size() - b);
    first_ = b;
    preps_.assign(n, LayerPrep{});
    for_each_index(n, threads_, [&](std::size_t k) {
      const auto& ff = model_.blocks[b + k].ff;
      if (forms_only_) {
        preps_[k].one = one_direction_form(ff);
        return;
      }
      UpwardRounding up;
      preps_[k] = prepare_layer(ff);
    });
  }
  static constexpr std::size_t kBatch = 256;
  const Transformer<Rational>& model_;
  unsigned threads_;
  bool forms_only_ = false;
  std::size_t first_ = 0;
  std::vector<LayerPrep> preps_;
};

// Per activation pattern P (exact, then rounded up): jacobian >= |eta I + sum_{k in P} W_k U_k|_inf
// (lem:float-ff); for a one-direction layer U_k = slope_k r^T also w_inf >= |w_P|_inf and
// gain >= |eta + r.w_P| with w_P = sum_{k in P} slope_k W_k (lem:float-reading).
struct PatternBound {
  double jacobian = 0, w_inf = 0, gain = 0;
};

// PatternBound per pattern, cached. One direction: O(w d) exact operations per pattern.
class PatternNorms {
 public:
  // form: one_direction_form(ff), computed once per layer (LayerPrep).
  PatternNorms(const FeedForward<Rational>& ff, const std::optional<OneDirectionForm>& form) : ff_(ff), form_(form) {
    if (form_)
      for (Eigen::Index c = 0; c < form_->r.size(); ++c) r_one_ += abs(form_->r[c]);
  }
  // Requires UpwardRounding.
  PatternBound operator()(const std::vector<char>& active) {
    std::uint64_t mask = 0;
    for (std::size_t k = 0; k < active.size() && k < 64; ++k)
      if (active[k]) mask |= std::uint64_t{1} << k;
    if (active.size() <= 64)
      if (auto it = cache_.find(mask); it != cache_.end()) return it->second;
    const auto d = ff_.U.cols();
    PatternBound out;
    double& norm = out.jacobian;
    if (form_) {
      Point wp = Point::Zero(d);
      for (std::size_t k = 0; k < active.size(); ++k)
        if (active[k]) wp += ff_.W.col(static_cast<Eigen::Index>(k)) * form_->slope[k];
      Rational gain = ff_.eta;
      for (Eigen::Index c = 0; c < d; ++c) {
        norm = std::max(norm, magnitude_up(abs(ff_.eta + wp[c] * form_->r[c]) + abs(wp[c]) * (r_one_ - abs(form_->r[c]))));
        out.w_inf = std::max(out.w_inf, magnitude_up(wp[c]));
        gain += wp[c] * form_->r[c];
      }
      out.gain = magnitude_up(gain);
    } else {
      Mat<Rational> J = Mat<Rational>::Identity(d, d) * ff_.eta;
      for (std::size_t k = 0; k < active.size(); ++k)
        if (active[k]) J += ff_.W.col(static_cast<Eigen::Index>(k)) * ff_.U.row(static_cast<Eigen::Index>(k));
      for (Eigen::Index c = 0; c < d; ++c) {
        Rational row = 0;
        for (Eigen::Index c2 = 0; c2 < d; ++c2) row += abs(J(c, c2));
        norm = std::max(norm, magnitude_up(row));
      }
    }
    if (active.size() <= 64) cache_[mask] = out;
    return out;
  }

 private:
  const FeedForward<Rational>& ff_;
  const std::optional<OneDirectionForm>& form_;
  Rational r_one_ = 0;
  std::map<std::uint64_t, PatternBound> cache_;
};

// One thread's scratch for the feed-forward bound, and the decisions it counted.
struct TokenScratch {
  TokenScratch(const FeedForward<Rational>& ff, const std::optional<OneDirectionForm>& form, std::size_t w)
      : E(w), R(w), act(w), live(w), active(w), plus(w), minus(w), jacobian(ff, form) {}
  std::vector<double> E, R, act;
  std::vector<char> live, active, plus, minus;
  PatternNorms jacobian;
  std::size_t decisions = 0, kinks = 0;
};

class Propagation {
 public:
  Propagation(ExactReference& ref, std::vector<std::size_t> begin, std::size_t d, unsigned threads, std::size_t layers)
      : ref_(ref), begin_(std::move(begin)), d_(d), threads_(threads), mid_(ref.size() * d),
        rad_(ref.size()), e_(ref.size()), rho_(ref.size()), stamp_(ref.size()), t_lo_(ref.size()), t_hi_(ref.size()),
        right_(layers), left_(layers) {}

  // Softmax: the temperature, before the first attention layer with A != 0.
  void set_tau(const Rational& tau) { tau_ = tau; }
  const std::vector<double>& errors() const { return e_; }
  // After a hardmax attention layer with A != 0 and V != 0: every token's unique exact argmax
  // (shown by exact score gaps, lem:float-scores); empty otherwise.
  const std::vector<std::size_t>& argmax() const { return argmax_; }
  FloatRunFacts& facts() { return facts_; }

  std::string where(std::size_t i) const {
    const auto j = static_cast<std::size_t>(std::upper_bound(begin_.begin(), begin_.end(), i) - begin_.begin()) - 1;
    return "sequence " + std::to_string(j + 1) + ", token " + std::to_string(i - begin_[j] + 1);
  }

  // Inputs rounded to nearest double: e_i = u max_c |x_ic| (lem:float-run, step 0).
  std::optional<std::string> start() {
    for (std::size_t i = 0; i < e_.size(); ++i) {
      refresh(i);
      if (const Point* x = ref_.point(i))
        for (Eigen::Index c = 0; c < x->size(); ++c)
          if (!in_relative_range((*x)[c]))
            return where(i) + ": " + *out_of_range((*x)[c], "coordinate " + std::to_string(c + 1));
      e_[i] = u * exact_inf(i);
    }
    return std::nullopt;
  }

  void refresh(std::size_t i) { ref_.box(i, &mid_[i * d_], rad_[i]); }
  // Frees every per-token and per-layer bound once the bound has stopped (nothing reads them then):
  // about 65 bytes per token and 8 per coordinate, alive through the rest of the exact pass otherwise.
  void release() {
    for (auto* v : {&mid_, &rad_, &e_, &rho_, &t_lo_, &t_hi_, &mid_max_}) std::vector<double>().swap(*v);
    std::vector<std::size_t>().swap(stamp_);
    std::vector<std::size_t>().swap(argmax_);
    order_ = EnclosureOrder();
    right_ = LayerCharges(0);
    left_ = LayerCharges(0);
  }
  // Every box after a layer that may change every token (every bound settled).
  void refresh_all() {
    for (std::size_t i = 0; i < e_.size(); ++i) refresh(i);
    readings_current_ = false;
  }

  // Attention layer with V != 0 (lem:float-attention); tau only for softmax. next: the direction
  // of the following feed-forward layer when it has one (then the reading errors along it are
  // kept, lem:float-reading).
  std::optional<std::string> attention(const SelfAttention<Rational>& sa, Setting kind, double tau_inv,
                                       const std::optional<Point>& next_direction) {
    if (auto f = structured_range(sa.A, "A")) return f;
    if (auto f = structured_range(sa.V, "V")) return f;
    if (auto f = out_of_range(sa.rho, "rho")) return f;
    const StructuredBound A = structured_bound(sa.A), V = structured_bound(sa.V);
    argmax_.assign(kind == Setting::hardmax && !A.zero && !V.zero ? e_.size() : 0, 0);
    std::vector<double> next(e_.size()), next_rho(e_.size());
    std::optional<VReading> vr;
    std::optional<double> scale;  // |lambda| when next_direction = lambda direction_
    if (next_direction) {
      vr = v_reading(sa.V, *next_direction);
      if (direction_)
        if (auto lambda = multiple_of(*next_direction, *direction_)) scale = magnitude_up(*lambda);
    }
    // Sequences in chunks on threads_ threads (each writes only its own tokens' entries); the
    // decisions up to the first failing sequence are counted, as in one thread.
    const std::size_t sequences = begin_.size() - 1;
    std::vector<Tally> tally(chunk_count(sequences, threads_));
    for_each_chunk(sequences, threads_, [&](std::size_t chunk, std::size_t first, std::size_t last) {
      UpwardRounding up;
      tally[chunk].failure = attend_sequences(sa, A, V, kind, tau_inv, vr, scale, first, last, next, next_rho, tally[chunk]);
    });
    for (auto& t : tally) {
      facts_.decisions += t.decisions;
      if (t.failure) return std::move(t.failure);
    }
    e_ = std::move(next);
    rho_ = std::move(next_rho);
    direction_ = next_direction;
    return std::nullopt;
  }

  // Decisions counted and the first failure met by one chunk of work.
  struct Tally {
    std::size_t decisions = 0;
    std::optional<std::string> failure;
    // argmax_by_enclosures' cache: mid_rad of the coordinates of the tokens [keys_from, ...) of
    // one sequence, token after token (valid within one attention layer).
    std::vector<MidRad> keys;
    std::size_t keys_from = SIZE_MAX;
  };

  // lem:float-attention for the tokens of sequences [first, last): their entries of next, next_rho
  // (and argmax_); the first failure, if any. Requires UpwardRounding.
  std::optional<std::string> attend_sequences(const SelfAttention<Rational>& sa, const StructuredBound& A,
                                              const StructuredBound& V, Setting kind, double tau_inv,
                                              const std::optional<VReading>& vr, const std::optional<double>& scale,
                                              std::size_t first, std::size_t last, std::vector<double>& next,
                                              std::vector<double>& next_rho, Tally& tally) {
    const double rho = magnitude_up(sa.rho);
    const double c2 = gamma_up(2) * (1 + u) + u;
    for (std::size_t j = first; j < last; ++j) {
      const std::size_t b0 = begin_[j], b1 = begin_[j + 1], n = b1 - b0;
      double xmax = 0, xs = 0, emax = 0;  // over the sequence: |xhat|, |x*|, e
      std::vector<double> one(n);          // >= |xhat_l|_1 (lem:float-scores)
      for (std::size_t i = b0; i < b1; ++i) {
        one[i - b0] = exact_one(i) + static_cast<double>(d_) * e_[i];
        xmax = std::max(xmax, float_inf(i));
        xs = std::max(xs, exact_inf(i));
        emax = std::max(emax, e_[i]);
      }
      for (std::size_t i = b0; i < b1; ++i) {
        Applied m{0, 0};  // the attended average: |m*|_inf <= mag - err, error err
        if (!V.zero) {
          auto avg = attended_average(sa, A, kind, tau_inv, i, b0, b1, one, xmax, xs, emax, tally);
          if (!avg) return tally.failure;
          m = *avg;
        }
        const Applied v = apply_bound(V, m.mag, m.err, d_);
        if (sa.rho == 0)
          next[i] = v.err;
        else if (V.zero && sa.rho == 1)
          next[i] = e_[i];
        else
          next[i] = c2 * (rho * float_inf(i) + v.mag + v.err) + rho * e_[i] + v.err + 2 * tiny;
        if (!(next[i] < kGuard)) return where(i) + ": the error bound exceeds 2^1000";
        if (vr) {
          const double rho_in = scale ? std::min(*scale * rho_[i], vr->r_one * e_[i]) : vr->r_one * e_[i];
          next_rho[i] = std::min(vr->r_one * next[i], attention_reading(sa, V, *vr, m, rho_in, i, v));
        }
      }
    }
    return std::nullopt;
  }

  // >= |r.(SAhat_i - SA*_i)| (lem:float-reading-attention): V's output read by r, and the outer sum
  // rho xhat_i + V m_i as in lem:float-attention. m: the attended average; rho_in: the input's
  // reading error; v: lem:float-structured for V at m.
  double attention_reading(const SelfAttention<Rational>& sa, const StructuredBound& V, const VReading& vr,
                           const Applied& m, double rho_in, std::size_t i, const Applied& v) const {
    double rv = 0;  // >= |r.(fl(Vhat mhat) - V m*)|
    if (!V.zero) {
      const std::size_t k = V.p_inf.size();
      const double cq = gamma_up(d_) * (1 + u) + u, cy = gamma_up(k + 1) * (1 + u) + u;
      double terms = V.alpha * vr.r_one * m.mag, propagated = V.alpha * vr.r_one * m.err;
      for (std::size_t t = 0; t < k; ++t) {
        const double ec = cq * V.q_one[t] * m.mag + V.q_one[t] * m.err + static_cast<double>(d_) * tiny;
        terms = terms + vr.r_abs_p[t] * (V.q_one[t] * m.mag + ec);
        propagated = propagated + vr.r_dot_p[t] * ec;
      }
      rv = cy * terms + propagated + static_cast<double>(k + 1) * tiny * vr.r_one;
    }
    const double rho = magnitude_up(sa.rho);
    if (sa.rho == 0) return rv;
    if (V.zero && sa.rho == 1) return rho_in;
    const double c2 = gamma_up(2) * (1 + u) + u;
    return c2 * vr.r_one * (rho * float_inf(i) + v.mag + v.err) + rho * rho_in + rv + 2 * tiny * vr.r_one;
  }

  // Feed-forward layer `layer` (lem:float-ff): the tokens whose exact value may change are
  // appended to `changed`. A layer that is the identity outside its breakpoints is bounded
  // token by token only on a band around them (lem:float-run-sparse); the other tokens owe
  // charges, settled when they are next needed.
  // prep: prepare_layer(ff).
  std::optional<std::string> feed_forward(const FeedForward<Rational>& ff, const LayerPrep& prep, std::size_t layer,
                                          std::vector<std::size_t>& changed) {
    if (prep.out_of_range) return prep.out_of_range;
    const FFBound& f = prep.f;
    const OneDirectionForm* form = prep.one && prep.one->identity_outside ? &*prep.one : nullptr;
    double lo = 0, hi = 0;
    std::vector<double> r_mid(d_), r_mag(d_);  // the reading direction of a sparse layer
    if (form) {
      const MidRad l = mid_rad(form->lo), h = mid_rad(form->hi);
      lo = lower_difference(l.mid, l.rad);
      hi = h.mid + h.rad;
      for (std::size_t c = 0; c < d_; ++c) {
        const MidRad rc = mid_rad(form->r[static_cast<Eigen::Index>(c)]);
        r_mid[c] = rc.mid;
        r_mag[c] = std::fabs(rc.mid) + rc.rad;
      }
    }
    const double cU = gamma_up(f.d + 1) * (1 + u) + u;
    const double cM = gamma_up(f.d + 1, 2 * u) * (1 + 0x1p-51) + 0x1p-51;
    const double under = static_cast<double>(f.d + 1) * 0x1p-1072;
    std::optional<SparsePlan> plan;
    if (form) plan = sparse_plan(ff, f, *form, *prep.sparse_reading, layer, r_mid, r_mag, cU, cM, under);
    if (!plan) {
      settle_all(layer);
      readings_current_ = false;
    }
    std::vector<char> maybe_changed(plan ? 0 : e_.size(), form ? 0 : 1);
    // One direction (U_k = slope_k r^T): reading errors rho (lem:float-reading).
    std::optional<ReadingLayer> reading;
    if (plan)
      reading = plan->reading;
    else if (prep.one)
      reading = reading_layer(ff, *prep.one, direction_);
    // Token i's new error bound (writes e_[i], rho_[i] and maybe_changed[i] only); counts into t.
    auto one_token = [&](std::size_t i, TokenScratch& t) -> std::optional<std::string> {
      const double* m = &mid_[i * d_];
      const double e = e_[i], r = rad_[i];
      double xmax = 0;
      for (std::size_t c = 0; c < d_; ++c) xmax = std::max(xmax, std::fabs(m[c]) + r + e);
      // >= |r.(xhat - x*)| for this layer's direction r (lem:float-reading)
      double rho = 0;
      if (reading) rho = reading->scale ? std::min(*reading->scale * rho_[i], reading->r_one * e) : reading->r_one * e;
      std::size_t live_units = 0;
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
        t.R[k] = f.zero_row[k] ? u * f.b_mag[k] : cU * s + under;
        t.E[k] = t.R[k] + (reading ? std::min(f.u_one[k] * e, reading->slope[k] * rho) : f.u_one[k] * e);  // |phat_k - p*_k|
        const double pr = f.u_one[k] * r + cM * sm + under;      // |p*_k - pm| over the box
        if (!(t.E[k] < kGuard && pr < kGuard)) return where(i) + ": the error bound exceeds 2^1000";
        int sign = 0;  // sign of p*_k: +1, -1, or 0 (exactly zero: a kink)
        if (std::fabs(pm) > pr + t.E[k]) {
          sign = pm > 0 ? 1 : -1;
        } else {
          const auto kk = static_cast<Eigen::Index>(k);
          const auto [plo, phi] = ref_.affine_range(i, Point(ff.U.row(kk).transpose()), ff.b[kk]);
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
        sign == 0 ? ++t.kinks : ++t.decisions;
        t.live[k] = sign >= 0;
        t.active[k] = sign > 0;
        t.act[k] = sign > 0 ? std::fabs(pm) + pr : 0;  // >= relu(p*_k)
        live_units += t.live[k];
      }
      if (form && !plan) {
        const auto [t_lo, t_hi] = reading_enclosure(m, r, r_mid, r_mag, cM, under);
        maybe_changed[i] = !(t_hi < lo || t_lo > hi);
      }
      if (live_units == 0 && f.eta_one) {  // fl(1 * xhat + 0) = xhat: e unchanged
        rho_[i] = rho;
        return std::nullopt;
      }
      const double cW = gamma_up(live_units + 1) * (1 + u) + u;
      // Active units propagate the input error through the pattern's exact Jacobian eta I + w_P r^T
      // (one direction: |eta| e + |w_P| rho); kinks (p* = 0) contribute |What_k ahat_k| <= (1 + u) |W_k| E_k.
      const PatternBound pattern = t.jacobian(t.active);
      double terms = f.eta * xmax, propagated = pattern.jacobian * e;
      if (reading) propagated = std::min(propagated, f.eta * e + pattern.w_inf * rho);
      for (std::size_t k = 0; k < f.w; ++k) {
        if (!t.live[k]) continue;
        terms = terms + f.w_col[k] * (t.act[k] + t.E[k]);
        propagated = propagated + f.w_col[k] * (t.active[k] ? t.R[k] : (1 + u) * t.E[k]);
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
      e_[i] = cW * terms + propagated + static_cast<double>(live_units + 1) * tiny;
      if (!(e_[i] < kGuard)) return where(i) + ": the error bound exceeds 2^1000";
      if (reading)
        rho_[i] = std::min(reading->r_one * e_[i], reading_error(*reading, f, t, m, r, e, rho, pattern.gain, kinks, live_units));
      return std::nullopt;
    };
    std::vector<std::size_t> all;
    if (!plan) {
      all.resize(e_.size());
      for (std::size_t i = 0; i < all.size(); ++i) all[i] = i;
    }
    const std::vector<std::size_t>& tokens = plan ? plan->band : all;
    auto failure = for_each_token(ff, prep.one, f.w, tokens, one_token);
    facts_.tokens_bounded += tokens.size();
    if (reading)
      direction_ = reading->r;
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
      if (!(t_hi_[i] < lo || t_lo_[i] > hi)) changed.push_back(i);
    return std::nullopt;
  }

  // Token i's reading r.x enclosed in [lo, hi] from its box (m, rad): the rounded direction
  // (r_mid, r_mag) and the rounding of the sum (cM) included.
  std::pair<double, double> reading_enclosure(const double* m, double rad, const std::vector<double>& r_mid,
                                              const std::vector<double>& r_mag, double cM, double under) const {
    double tm = 0, tr = 0;
    for (std::size_t c = 0; c < d_; ++c) {
      tm = tm + r_mid[c] * m[c];
      tr = tr + r_mag[c] * (rad + cM * std::fabs(m[c]));
    }
    tr = tr + under;
    return {lower_difference(tm, tr), tm + tr};
  }

  // >= |r.(yhat - y*)| after a one-direction layer (lem:float-reading): the rounding of the output
  // sums read by r, the input's reading error times |eta + r.w_P|, and the units' own rounding
  // (active units) or value (kinks) through |r.W_k|. m, r, e: token's box and error; rho its reading error.
  static double reading_error(const ReadingLayer& l, const FFBound& f, const TokenScratch& t, const double* m, double r,
                              double e, double rho, double gain, const std::optional<PatternBound>& kinks,
                              std::size_t live_units) {
    const double cW = gamma_up(live_units + 1) * (1 + u) + u;
    double x_read = 0;  // >= sum_c |r_c| max(|xhat_c|, |x*_c|)
    for (std::size_t c = 0; c < f.d; ++c) x_read = x_read + l.r_mag[c] * (std::fabs(m[c]) + r + e);
    double terms = f.eta * x_read, propagated = gain * rho, alt = kinks ? kinks->gain * rho : 0;
    for (std::size_t k = 0; k < f.w; ++k) {
      if (!t.live[k]) continue;
      terms = terms + l.r_abs_w[k] * (t.act[k] + t.E[k]);
      propagated = propagated + l.r_dot_w[k] * (t.active[k] ? t.R[k] : (1 + u) * t.E[k]);
      alt = alt + l.r_dot_w[k] * t.R[k];
    }
    if (kinks) propagated = std::min(propagated, alt);
    return cW * terms + propagated + static_cast<double>(live_units + 1) * tiny * l.r_one;
  }

  // Largest |x*_c| bound over coordinates of token i.
  double exact_inf(std::size_t i) const {
    double x = 0;
    for (std::size_t c = 0; c < d_; ++c) x = std::max(x, std::fabs(mid_[i * d_ + c]) + rad_[i]);
    return x;
  }
  double float_inf(std::size_t i) const { return exact_inf(i) + e_[i]; }
  // >= |xhat_i - xhat_l|_1.
  double difference_one(std::size_t i, std::size_t l) const {
    double x = 0;
    for (std::size_t c = 0; c < d_; ++c)  // each difference rounded up in both orders
      x = x + std::max(mid_[i * d_ + c] - mid_[l * d_ + c], mid_[l * d_ + c] - mid_[i * d_ + c]);
    return x + static_cast<double>(d_) * (rad_[i] + rad_[l] + e_[i] + e_[l]);
  }
  // >= |x*_i|_1 (sum over coordinates of the box bound).
  double exact_one(std::size_t i) const {
    double x = 0;
    for (std::size_t c = 0; c < d_; ++c) x = x + std::fabs(mid_[i * d_ + c]) + rad_[i];
    return x;
  }

  // Adds to token i the charges it owes for the sparse layers [stamp_i, now) (lem:float-run-sparse).
  // Requires UpwardRounding.
  void settle(std::size_t i, std::size_t now) {
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
  double absolute_reading(std::size_t i) const {
    double x = 0;
    for (std::size_t c = 0; c < d_; ++c) x = x + epoch_.r_mag[c] * (std::fabs(mid_[i * d_ + c]) + rad_[i]);
    return x;
  }
  // Every token's bound as of layer `now`. Requires UpwardRounding.
  void settle_all(std::size_t now) {
    charges_from_ = now;  // no charge recorded before `now` is owed any more
    if (!pending_) return;
    for (std::size_t i = 0; i < e_.size(); ++i) settle(i, now);
    pending_ = false;
  }

  // After the exact run applied layer `layer`: the changed tokens' boxes, readings and the maxima.
  // Requires UpwardRounding.
  void refresh_changed(const std::vector<std::size_t>& changed, std::size_t layer) {
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

 private:
  // The direction's rounded entries and the constants of reading_enclosure for the current epoch.
  struct Epoch {
    std::vector<double> r_mid, r_mag;
    double cM = 0, under = 0;
  };
  // A side's charge and the most it charges any token (at the farthest reading).
  struct SideCharge {
    AffineCharge charge;
    Charge most;
  };
  // What a sparse layer computes token by token (band) and charges the others (per side).
  struct SparsePlan {
    ReadingLayer reading;           // the layer's reading bounds, referred to its own direction
    std::vector<std::size_t> band;  // ascending
    std::optional<SideCharge> right, left;  // nullopt: that side computes x exactly (no unit active)
  };

  // Makes mid_max_, rad_max_, t_min_, t_max_ cover token i's box and reading enclosure.
  void cover_box(std::size_t i) {
    for (std::size_t c = 0; c < d_; ++c) mid_max_[c] = std::max(mid_max_[c], std::fabs(mid_[i * d_ + c]));
    rad_max_ = std::max(rad_max_, rad_[i]);
    t_min_ = std::min(t_min_, t_lo_[i]);
    t_max_ = std::max(t_max_, t_hi_[i]);
  }

  // A new epoch of direction r at layer `layer`: every token settled, its reading error referred to
  // r (as in lem:float-reading), its reading enclosed, and the maxima recomputed.
  void begin_epoch(const FeedForward<Rational>& ff, const OneDirectionForm& form, std::size_t layer,
                   const std::vector<double>& r_mid, const std::vector<double>& r_mag, double cM, double under) {
    settle_all(layer);
    const ReadingLayer rl = reading_layer(ff, form, direction_);
    epoch_ = Epoch{r_mid, r_mag, cM, under};
    mid_max_.assign(d_, 0);
    rad_max_ = e_max_ = rho_max_ = 0;
    t_min_ = kGuard;
    t_max_ = -kGuard;
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
  std::optional<SparsePlan> sparse_plan(const FeedForward<Rational>& ff, const FFBound& f, const OneDirectionForm& form,
                                        const ReadingLayer& rl_form, std::size_t layer,
                                        const std::vector<double>& r_mid, const std::vector<double>& r_mag, double cU,
                                        double cM, double under) {
    for (const Rational& s : form.slope)
      if (s == 0) return std::nullopt;
    if (!readings_current_ || !direction_ || !equal_points(*direction_, form.r))
      begin_epoch(ff, form, layer, r_mid, r_mag, cM, under);
    SparsePlan plan{rl_form, {}, {}, {}};
    const ReadingLayer& rl = plan.reading;
    // Virtual token: per coordinate |x_c| <= xs_c for x* and xhat of every token.
    std::vector<double> xs(d_);
    double xmax = 0, x_most = 0, r_ratio = 0;  // x_most >= every token's absolute_reading
    for (std::size_t c = 0; c < d_; ++c) {
      xs[c] = mid_max_[c] + rad_max_ + e_max_;
      xmax = std::max(xmax, xs[c]);
      x_most = x_most + epoch_.r_mag[c] * (mid_max_[c] + rad_max_);
      r_ratio = std::max(r_ratio, rl.r_mag[c] / epoch_.r_mag[c]);
    }
    // Per unit: E_k for every token (the margin); for a token of absolute reading X,
    // R_k <= R0_k + R1_k X and its E_k <= E0_k + R1_k X (the charges), as
    // sum_c |U_kc| |x_c| <= kappa_k sum_c |r_c| |x_c| with kappa_k >= |U_kc| / |r_c|.
    std::vector<double> E(f.w), R0(f.w), R1(f.w), E0(f.w);
    OwnMargin own{std::vector<double>(f.w), f.u_one, rl.slope, std::vector<double>(f.w)};
    Rational margin = 0;  // max_k E_k / |slope_k|
    for (std::size_t k = 0; k < f.w; ++k) {
      double s = f.b_mag[k];
      for (std::size_t c = 0; c < f.d; ++c) s = s + f.u_mag[k * f.d + c] * xs[c];
      const double from_rho = std::min(f.u_one[k] * e_max_, rl.slope[k] * rho_max_);
      own.shared[k] = cU * s + under;
      own.inv_slope[k] = magnitude_up(1 / abs(form.slope[k]));
      E[k] = cU * s + under + from_rho;
      double kappa = 0;
      for (std::size_t c = 0; c < f.d; ++c) kappa = std::max(kappa, f.u_mag[k * f.d + c] / epoch_.r_mag[c]);
      R0[k] = cU * (f.b_mag[k] + kappa * rl.r_one * e_max_) + under;
      R1[k] = cU * kappa;
      E0[k] = R0[k] + from_rho;
      if (!(E[k] < kGuard)) return std::nullopt;
      margin = std::max(margin, Rational(E[k]) / abs(form.slope[k]));
    }
    const MidRad l = mid_rad(form.lo), h = mid_rad(form.hi);
    hi_key_ = lower_difference(h.mid, h.rad);
    lo_key_ = -(l.mid + l.rad);
    for (const int side : {1, -1}) {
      std::vector<char> active(f.w);
      std::size_t live = 0;
      Point w_side = Point::Zero(static_cast<Eigen::Index>(d_));  // sum of slope_k W_k over the active units
      for (std::size_t k = 0; k < f.w; ++k)
        if ((active[k] = rl.slope_sign[k] == side)) {
          ++live;
          w_side += ff.W.col(static_cast<Eigen::Index>(k)) * form.slope[k];
        }
      if (live == 0) continue;  // no unit active: fl(1 xhat + 0) = xhat
      // The side's exact Jacobian eta I + w_side r^T is I (eta = 1): errors pass with factor 1.
      if (!w_side.isZero()) return std::nullopt;
      const double cW = gamma_up(live + 1) * (1 + u) + u;
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
      const double tiny_live = static_cast<double>(live + 1) * tiny;
      const AffineCharge charge{{cW * terms + rounded + tiny_live, cW * terms_r + rounded_r + tiny_live * rl.r_one},
                                {cW * slope_w, cW * slope_r},
                                {cW * per_x + rounded_x, cW * per_x_r + rounded_x_r}};
      // The most any token on this side is charged: at q = t_max, resp. -t_min, and X largest.
      const double reach = std::max(0.0, (side > 0 ? t_max_ : -t_min_) + (-key));
      const Charge most{charge.alpha.e + charge.beta.e * reach + charge.gamma.e * x_most,
                        charge.alpha.rho + charge.beta.rho * reach + charge.gamma.rho * x_most};
      if (!(most.e < kGuard && most.rho < kGuard)) return std::nullopt;
      (side > 0 ? plan.right : plan.left) = SideCharge{charge, most};
    }
    // Candidates: the tokens whose reading enclosure meets [lo - 2 margin, hi + 2 margin] (the
    // others are decided by the shared margin), that zone shrunk while the errors of the tokens
    // in it allow (candidate_reach); a candidate stays out of the band when its own margin (its
    // settled e_i, rho_i) decides it (lem:float-run-sparse (1), per token).
    const double lo_down = lower_difference(l.mid, l.rad), hi_up = h.mid + h.rad;
    const double reach = candidate_reach(2 * magnitude_up(margin), own, lo_down, hi_up, layer, x_most);
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

  // lem:float-run-sparse (1) for one token: E_k(i) = shared_k + min(|U_k|_1 e_i, |slope_k| rho_i)
  // bounds its float pre-activation error (shared_k: the rounding part for the shared sizes).
  struct OwnMargin {
    std::vector<double> shared, u_one, slope, inv_slope;  // inv_slope_k >= 1 / |slope_k|
    // >= max_k E_k / |slope_k| for a token with errors e, rho. Requires UpwardRounding.
    double mu(double e, double rho) const {
      double m = 0;
      for (std::size_t k = 0; k < shared.size(); ++k)
        m = std::max(m, (shared[k] + std::min(u_one[k] * e, slope[k] * rho)) * inv_slope[k]);
      return m;
    }
  };
  // True when token i (settled) reads at least 2 mu_i outside [lo_down, hi_up], a lower bound of
  // the hull's left end and an upper bound of its right end, mu_i = max_k E_k(i) / |slope_k|:
  // then every unit of token i is decided as in the exact run. Requires UpwardRounding.
  bool decided_by_own_margin(std::size_t i, const OwnMargin& own, double lo_down, double hi_up) const {
    const double mu = own.mu(e_[i], rho_[i]);
    if (!(mu < kGuard)) return false;
    return t_lo_[i] > hi_up + 2 * mu || t_hi_[i] < lower_difference(lo_down, 2 * mu);
  }

  // The candidate zone [lo_down - reach, hi_up + reach], shrunk from `reach` (twice the shared
  // margin): every token meeting the zone has e_i <= E and rho_i <= P, its settled bounds (the
  // largest over the zone, EnclosureOrder) plus the most it can owe (the charges since the last
  // full settlement at the zone's farthest readings and the largest absolute reading x_most), so
  // its own margin is at most mu(E, P); a token of the zone outside the zone of 2 mu(E, P) is then
  // decided by lem:float-run-sparse (1), and the zone shrinks to that. Requires UpwardRounding.
  double candidate_reach(double reach, const OwnMargin& own, double lo_down, double hi_up, std::size_t layer,
                         double x_most) {
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
  void close_sparse_layer(const SparsePlan& plan, std::size_t layer, std::size_t w) {
    const std::size_t lazy = e_.size() - plan.band.size();
    facts_.decisions += lazy * w;  // every unit of every other token: sign shown by the margin
    facts_.tokens_charged += lazy;
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

 private:
  // The float attended average of token i (lem:float-attention): magnitude bound (of both the
  // float and the exact value) and error; nullopt with tally.failure set when a decision is not shown.
  std::optional<Applied> attended_average(const SelfAttention<Rational>& sa, const StructuredBound& A, Setting kind,
                                          double tau_inv, std::size_t i, std::size_t b0, std::size_t b1,
                                          const std::vector<double>& one, double xmax, double xs, double emax,
                                          Tally& tally) {
    const std::size_t n = b1 - b0;
    const double nn = static_cast<double>(n), dd = static_cast<double>(d_);
    if (kind == Setting::hardmax && A.zero) {
      // Every score is exactly 0 in both runs: all tie, m = fl(sum xhat_l) / n.
      const double g = gamma_up(n > 1 ? n - 1 : 0);
      return Applied{xmax + g * xmax + emax + u * xmax * (1 + g) + nn * tiny,
                     g * xmax + emax + u * xmax * (1 + g) + nn * tiny};
    }
    const Applied a = apply_bound(A, float_inf(i), e_[i], d_);
    // Per key l (lem:float-scores): |shat_il - s*_il| <= eps_l; a1 >= |a*|_1.
    double a1 = A.alpha * exact_one(i);
    for (std::size_t t = 0; t < A.p_one.size(); ++t) a1 = a1 + A.p_one[t] * A.q_one[t] * exact_inf(i);
    a1 = std::min(a1, dd * a.mag);
    const double per_one = gamma_up(d_) * (a.mag + a.err) + a.err;
    std::vector<double> eps_l(n);
    double eps = 0;  // max_l eps_l (lem:float-attention's eps is at least this)
    for (std::size_t l = 0; l < n; ++l) {
      eps_l[l] = per_one * one[l] + e_[b0 + l] * a1 + dd * tiny;
      eps = std::max(eps, eps_l[l]);
    }
    if (!(eps < kGuard && a.mag * xmax * dd < kGuard)) {
      tally.failure = where(i) + ": the score bounds exceed 2^1000";
      return std::nullopt;
    }
    // |(shat_top - shat_l) - (s*_top - s*_l)|: the query's error a.err enters through
    // |xhat_top - xhat_l|_1, the keys' errors through |a*|_1, roundings through gamma_d (lem:float-scores).
    const double rounding = gamma_up(d_) * (a.mag + a.err);
    auto need = [&](std::size_t top, std::size_t l) {
      return rounding * (one[top] + one[l]) + a.err * difference_one(b0 + top, b0 + l) + (e_[b0 + top] + e_[b0 + l]) * a1 +
             2 * dd * tiny;
    };
    if (kind == Setting::hardmax) {
      const std::size_t best = exact_argmax(sa, i, b0, b1, need, tally);
      if (best == b1) return std::nullopt;
      argmax_[i] = best;
      ++tally.decisions;
      return Applied{float_inf(best), e_[best]};
    }
    // Softmax (lem:float-softmax): scores/tau perturbed by eps1, log-weights by eta. A = 0: every
    // score is exactly 0 in both runs (eps = S = 0), so eta = 5u, all keys tie, and nothing here
    // depends on tau (tau_inv and tau_ may still be unset).
    const double S = dd * a.mag * xs;  // >= |s*_il|; 0 when A = 0
    const double g = gamma_up(n);
    const double cm = 2 * g * (1 + 2 * g) * (1 + u) + u;
    // Both bounds below hold when their hypotheses do; the smaller one is kept.
    std::optional<double> by_gaps;
    if (!A.zero)
      if (auto tail = softmax_tail(sa, i, b0, b1, need, S, eps, tau_inv))  // lem:float-softmax-gaps
        by_gaps = cm * xmax + e_[tail->top] + tail->weighted_error + 2 * tail->weight * xs + nn * 0x1p-1069;
    const double eps1 = A.zero ? 0 : (eps * (1 + u) + 2 * u * S) * tau_inv * (1 + 2 * u);
    const double eta = eps1 + 2 * u * (S * tau_inv + eps1) + 5 * u;
    if (!(2 * eta <= 1)) {
      if (by_gaps) return Applied{xs + *by_gaps, *by_gaps};
      tally.failure = where(i) + ": the softmax weights are not controlled (log-weight error bound " +
                 approx_decimal(Rational(eta), 3) + " > 1/2)";
      return std::nullopt;
    }
    // >= |pihat - pi|_1; at most 2 (e^{2 eta} - 1)(1 - pi_top) when the exact scores are known.
    const double tail = A.zero ? (n > 1 ? 1 : 0) : tail_weight(sa, i, b0, b1);  // A = 0: gap 0, (n - 1) e^0
    const double dpi = (2 * eta + 4 * eta * eta) * std::min(1.0, 2 * tail) + nn * 0x1p-1070;
    const double err = std::min(cm * xmax + emax + dpi * xs + nn * 0x1p-1072, by_gaps.value_or(kGuard));
    return Applied{xs + err, err};
  }

  // lem:float-softmax-gaps: with every token of the sequence an exact point and the exact top score
  // ahead of every other by more than the error of the score difference (need), the float weights
  // of the other keys are at most p_l = e^{(1 - u) D_l} (1 + 4u)(1 + 8u) + 3 eta_0 with
  // D_l >= sigma_l - sigma_top < 0; weight >= sum_l p_l, weighted_error >= sum_l p_l e_l.
  struct SoftmaxTail {
    std::size_t top = 0;  // global index of the exact top key
    double weight = 0, weighted_error = 0;
  };
  template <class Need>
  std::optional<SoftmaxTail> softmax_tail(const SelfAttention<Rational>& sa, std::size_t i, std::size_t b0,
                                          std::size_t b1, const Need& need, double S, double eps, double tau_inv) {
    for (std::size_t l = b0; l < b1; ++l)
      if (!ref_.point(l)) return std::nullopt;
    const std::vector<Rational> s = exact_scores(sa, i, b0, b1);
    const auto top = static_cast<std::size_t>(std::max_element(s.begin(), s.end()) - s.begin());
    const Rational unit = Rational(u);
    // >= the rounding of sigma_l - sigma_top beyond (shat_l - shat_top) / tauhat
    const Rational shift = 2 * unit * Rational(S + eps) * Rational(tau_inv) * (1 + 2 * unit);
    SoftmaxTail tail{b0 + top, 0, 0};
    for (std::size_t l = 0; l < s.size(); ++l) {
      if (l == top) continue;
      const Rational D = -(s[top] - s[l] - Rational(need(top, l))) / (tau_ * (1 + unit)) + shift;
      if (D >= 0) return std::nullopt;
      const double e = magnitude_up(exp(Interval(D * (1 - unit), 64)).upper());
      const double p = (e * (1 + 4 * u)) * (1 + 8 * u) + 3 * tiny;
      tail.weight = tail.weight + p;
      tail.weighted_error = tail.weighted_error + p * e_[b0 + l];
    }
    return tail;
  }

  // An upper bound on 1 - pi_top <= (n - 1) e^{-gap/tau} from token i's exact scores (gap to
  // the second best), or 1 when some token of the sequence is not an exact point.
  double tail_weight(const SelfAttention<Rational>& sa, std::size_t i, std::size_t b0, std::size_t b1) {
    if (b1 - b0 == 1) return 0;
    for (std::size_t l = b0; l < b1; ++l)
      if (!ref_.point(l)) return 1;
    const Rational gap = exact_gap(sa, i, b0, b1).second;
    const Interval tail = exp(Interval(-gap / tau_, 64)) * Rational(static_cast<long>(b1 - b0 - 1));
    return magnitude_up(tail.upper());
  }

  // Token i's exact scores against the tokens of its sequence (all exact points).
  std::vector<Rational> exact_scores(const SelfAttention<Rational>& sa, std::size_t i, std::size_t b0,
                                     std::size_t b1) const {
    if (sa.A.is_zero()) return std::vector<Rational>(b1 - b0);  // every score is 0 (lem:mean-shift)
    std::vector<Rational> s;
    const Point Ax = sa.A.apply(*ref_.point(i));
    for (std::size_t l = b0; l < b1; ++l) s.push_back(dot(Ax, *ref_.point(l)));
    return s;
  }

  // exact_argmax's decision from double enclosures of the exact scores (score_enclosure.hpp):
  // the index in the sequence when they show it, nullopt when only the exact scores can.
  template <class Need>
  std::optional<std::size_t> argmax_by_enclosures(const SelfAttention<Rational>& sa, std::size_t i, std::size_t b0,
                                                  std::size_t b1, const Need& need_of, Tally& tally) const {
    if (sa.A.is_zero()) return std::nullopt;  // every score ties at 0: exact_argmax reports it
    if (tally.keys_from != b0) {
      tally.keys.clear();
      for (std::size_t l = b0; l < b1; ++l) append_mid_rad(*ref_.point(l), tally.keys);
      tally.keys_from = b0;
    }
    std::vector<MidRad> query;
    append_mid_rad(sa.A.apply(*ref_.point(i)), query);
    std::vector<ScoreEnclosure> s;
    s.reserve(b1 - b0);
    for (std::size_t l = 0; l < b1 - b0; ++l) s.push_back(enclose_score(query.data(), &tally.keys[l * d_], d_));
    return argmax_shown_by_enclosures(s, [&](std::size_t top, std::size_t l) { return need_of(top, l); });
  }

  // Index (in the sequence) of the largest exact score of token i and its gap to the second best.
  std::pair<std::size_t, Rational> exact_gap(const SelfAttention<Rational>& sa, std::size_t i, std::size_t b0,
                                             std::size_t b1) const {
    const std::vector<Rational> s = exact_scores(sa, i, b0, b1);
    const auto top = static_cast<std::size_t>(std::max_element(s.begin(), s.end()) - s.begin());
    Rational second;
    bool any = false;
    for (std::size_t l = 0; l < s.size(); ++l)
      if (l != top && (!any || s[l] > second)) second = s[l], any = true;
    return {top, s[top] - second};
  }

  // The unique exact argmax l* of token i's scores if every other exact score s*_l is below it
  // by more than need_of(l*, l) >= the error of shat_l* - shat_l (then the float argmax is l* too,
  // lem:float-scores); else b1 with tally.failure set. Indices of need_of are within the sequence.
  template <class Need>
  std::size_t exact_argmax(const SelfAttention<Rational>& sa, std::size_t i, std::size_t b0, std::size_t b1,
                           const Need& need_of, Tally& tally) {
    if (b1 - b0 == 1) return i;
    if (const auto top = argmax_by_enclosures(sa, i, b0, b1, need_of, tally)) return b0 + *top;  // the filter
    const std::vector<Rational> s = exact_scores(sa, i, b0, b1);
    const auto top = static_cast<std::size_t>(std::max_element(s.begin(), s.end()) - s.begin());
    for (std::size_t l = 0; l < s.size(); ++l) {
      if (l == top) continue;
      const Rational gap = s[top] - s[l], need = Rational(need_of(top, l));
      if (gap > need) continue;
      tally.failure = where(i) + ": the hardmax argmax is not shown: exact score gap " + approx_decimal(gap, 3) +
                 " to token " + std::to_string(l + 1) + " <= the sum of their score error bounds " +
                 approx_decimal(need, 3);
      return b1;
    }
    return b0 + top;
  }

  // Runs one_token(i, scratch) on every listed token, in one contiguous chunk per thread (at most
  // threads_ chunks of at least 1024 tokens; each under UpwardRounding with its own scratch,
  // built once per chunk); adds the decisions counted up to the first failing token and returns
  // that token's failure: the result of a sequential loop, for any threads_.
  template <class OneToken>
  std::optional<std::string> for_each_token(const FeedForward<Rational>& ff,
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

  ExactReference& ref_;
  std::vector<std::size_t> begin_;
  std::size_t d_;
  Rational tau_;  // softmax (set_tau)
  unsigned threads_;
  std::vector<double> mid_, rad_, e_;
  std::vector<double> rho_;           // >= |direction_.(xhat_i - x*_i)| while direction_ is set
  std::optional<Point> direction_;    // the reading direction of the last one-direction layer
  // lem:float-run-sparse: token i's e_, rho_ hold its bounds before layer stamp_[i]; it owes the
  // charges of the sparse layers since then on its side (right_: key hi_L < t; left_: -lo_L < -t).
  std::vector<std::size_t> stamp_;
  std::vector<double> t_lo_, t_hi_;   // enclosure of token i's reading along direction_ (readings_current_)
  EnclosureOrder order_;              // the tokens by t_lo_ (while readings_current_)
  bool readings_current_ = false, pending_ = false;
  std::size_t charges_from_ = 0;      // every token's stamp is at least this (its last full settlement)
  Epoch epoch_;
  LayerCharges right_, left_;
  double hi_key_ = 0, lo_key_ = 0;    // the current layer's keys: hi rounded down, -lo rounded down
  std::vector<double> mid_max_;       // >= |mid_ic| of every token i (while readings_current_)
  double rad_max_ = 0, e_max_ = 0, rho_max_ = 0;  // >= every token's rad, e (settled or owed), rho
  double t_min_ = 0, t_max_ = 0;      // enclose every token's reading along direction_
  FloatRunFacts facts_;
  std::vector<std::size_t> argmax_;  // hardmax, scores not all zero: token i's unique exact argmax (last attention)
};

FloatRunFacts failed(FloatRunFacts facts, std::size_t block, const char* layer, const std::string& why) {
  facts.certified = false;
  facts.failure = "block " + std::to_string(block + 1) + " (" + layer + "), " + why;
  return facts;
}

}  // namespace

struct FloatRunBound::State {
  State(const Transformer<Rational>& m, ExactReference& ref, std::vector<std::size_t> begin, Setting k,
        unsigned threads)
      : model(m), kind(k), run(ref, std::move(begin), static_cast<std::size_t>(m.dimension), threads, m.blocks.size()),
        preps(m, threads) {}
  const Transformer<Rational>& model;
  Setting kind;
  Propagation run;
  LayerPreps preps;
  bool tau_set = false;
  double tau_inv = 0;
  std::size_t next_block = 0;
  std::optional<FloatRunFacts> stopped;  // the facts of a bound that failed
  void stop(FloatRunFacts facts) {
    stopped = std::move(facts);
    run.release();
  }
  std::vector<std::size_t> changed;
};

FloatRunBound::FloatRunBound(const Transformer<Rational>& model, ExactReference& ref, std::vector<std::size_t> begin,
                             Setting kind, const std::optional<Rational>& tau, unsigned threads)
    : s_(std::make_unique<State>(model, ref, std::move(begin), kind, threads)) {
  if (kind == Setting::softmax && tau) set_tau(*tau);
  if (s_->stopped) return;
  UpwardRounding up;
  if (auto f = s_->run.start()) s_->stop(failed(s_->run.facts(), 0, "input", *f));
}

void FloatRunBound::set_tau(const Rational& tau) {
  s_->tau_set = true;
  if (s_->stopped) return;
  UpwardRounding up;
  if (auto f = out_of_range(tau, "tau")) {
    s_->stop(failed(s_->run.facts(), s_->next_block, "attention", *f));
    return;
  }
  s_->run.set_tau(tau);
  s_->tau_inv = magnitude_up(1 / tau);
}

FloatRunBound::~FloatRunBound() = default;

bool FloatRunBound::stopped() const { return s_->stopped.has_value(); }

std::optional<std::string> FloatRunBound::block(std::size_t b, const AdvanceAttention& attention,
                                                const AdvanceFeedForward& feed_forward) {
  const auto& block = s_->model.blocks[b];
  Propagation& run = s_->run;
  const bool attends = !block.sa.V.is_zero() || block.sa.rho != 1;  // else the layer maps x to x, in floats too
  // The rest of the block once the bound has failed: the exact run only (the layer's form from
  // the preps, computed in batches on the threads).
  const auto advance_from = [&](bool at_attention) -> std::optional<std::string> {
    if (at_attention)
      if (auto f = attention({})) return f;
    s_->preps.forms_only();
    return feed_forward(s_->preps.at(b).one);
  };
  s_->next_block = b + 1;
  if (s_->stopped) return advance_from(true);
  if (s_->kind == Setting::softmax && attends && !block.sa.A.is_zero() && !s_->tau_set)
    throw std::logic_error("FloatRunBound: set_tau() must precede block " + std::to_string(b + 1));
  const LayerPrep& prep = s_->preps.at(b);
  if (attends) {
    UpwardRounding up;
    run.settle_all(b);
    std::optional<Point> next_direction;
    if (prep.one) next_direction = prep.one->r;
    if (auto f = run.attention(block.sa, s_->kind, s_->tau_inv, next_direction)) {
      s_->stop(failed(run.facts(), b, "attention", *f));
      return advance_from(true);
    }
  }
  if (auto f = attention(attends ? run.argmax() : std::vector<std::size_t>{})) {
    s_->stop(failed(run.facts(), b, "attention", "exact run: " + *f));
    return f;
  }
  if (attends) {
    UpwardRounding up;
    run.refresh_all();
  }
  s_->changed.clear();
  {
    UpwardRounding up;
    if (auto f = run.feed_forward(block.ff, prep, b, s_->changed)) {
      s_->stop(failed(run.facts(), b, "feed-forward", *f));
      return feed_forward(prep.one);
    }
  }
  if (auto f = feed_forward(prep.one)) {
    s_->stop(failed(run.facts(), b, "feed-forward", "exact run: " + *f));
    return f;
  }
  UpwardRounding up;
  run.refresh_changed(s_->changed, b);
  return std::nullopt;
}

FloatRunFacts FloatRunBound::finish() {
  if (s_->stopped) return *s_->stopped;
  Propagation& run = s_->run;
  UpwardRounding up;
  run.settle_all(s_->model.blocks.size());
  FloatRunFacts facts = run.facts();
  double out_max = 0;
  for (std::size_t i = 0; i < run.errors().size(); ++i) {
    facts.delta = std::max(facts.delta, run.errors()[i]);
    out_max = std::max(out_max, run.exact_inf(i));
  }
  facts.certified = true;
  facts.relative_delta = out_max > 0 ? facts.delta / out_max : facts.delta;
  return facts;
}

FloatRunFacts bound_float_run(const Transformer<Rational>& model, const Dataset& data, Setting kind,
                              const Rational& tau, unsigned precision, unsigned threads) {
  TokenState inputs = inputs_of(data, threads);
  std::vector<std::size_t> begin = inputs.begin;
  if (kind == Setting::hardmax) {
    ExactForward pass(std::move(inputs), threads);
    ExactReference ref(pass);
    FloatRunBound bound(model, ref, std::move(begin), kind, std::nullopt, threads);
    for (std::size_t b = 0; b < model.blocks.size() && !bound.stopped(); ++b)
      (void)bound.block(
          b,
          [&](const std::vector<std::size_t>& argmax) {
            if (argmax.empty())
              pass.apply_attention(model.blocks[b].sa);
            else
              pass.apply_attention_with_proven_argmax(model.blocks[b].sa, argmax);
            return std::optional<std::string>();
          },
          [&](const std::optional<OneDirectionForm>& form) {
            pass.apply_feed_forward(model.blocks[b].ff, form);
            return std::optional<std::string>();
          });
    return bound.finish();
  }
  SoftmaxRun exact(std::move(inputs), tau, precision, threads);
  FloatRunBound bound(model, exact.view(), std::move(begin), kind, tau, threads);
  for (std::size_t b = 0; b < model.blocks.size() && !bound.stopped(); ++b)
    (void)bound.block(
        b, [&](const std::vector<std::size_t>&) { return exact.attention(model.blocks[b].sa); },
        [&](const std::optional<OneDirectionForm>& form) { return exact.feed_forward(model.blocks[b].ff, form); });
  return bound.finish();
}

}  // namespace seqi
