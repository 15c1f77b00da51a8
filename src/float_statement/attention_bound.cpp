// lem:float-attention (Attention step) and lem:float-softmax (Softmax weights), proofs/float-run.tex,
// with the score differences and softmax gaps of lem:float-scores and lem:float-softmax-gaps and
// the reading errors of lem:float-reading-attention (proofs/float-reading.tex): an attention
// layer bounded sequence by sequence, a hardmax argmax shown by enclosures or exact score gaps.
#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "float_statement/propagation.hpp"
#include "seqi/core/chunks.hpp"
#include "seqi/float_statement/score_enclosure.hpp"
#include "seqi/numbers/interval.hpp"

namespace seqi::float_run_detail {

// Attention layer with V != 0 (lem:float-attention); tau only for softmax. next: the direction
// of the following feed-forward layer when it has one (then the reading errors along it are
// kept, lem:float-reading).
std::optional<std::string> Propagation::attention(const SelfAttention<Rational>& sa, Setting kind, double tau_inv,
                                                  const std::optional<Point>& next_direction) {
  if (!weight_.empty()) throw std::logic_error("Propagation::attention after keep_one_token_per_sequence()");
  if (auto f = structured_range(sa.A, "A", fmt_)) return f;
  if (auto f = structured_range(sa.V, "V", fmt_)) return f;
  if (auto f = out_of_range(sa.rho, "rho", fmt_)) return f;
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

// lem:float-attention for the tokens of sequences [first, last): their entries of next, next_rho
// (and argmax_); the first failure, if any. Requires UpwardRounding.
std::optional<std::string> Propagation::attend_sequences(const SelfAttention<Rational>& sa, const StructuredBound& A,
                                                         const StructuredBound& V, Setting kind, double tau_inv,
                                                         const std::optional<VReading>& vr,
                                                         const std::optional<double>& scale, std::size_t first,
                                                         std::size_t last, std::vector<double>& next,
                                                         std::vector<double>& next_rho, Tally& tally) {
  expect_upward_rounding("Propagation::attend_sequences");
  const double rho = magnitude_up(sa.rho);
  const double c2 = dot_rounding(2, fmt_);
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
      const Applied v = apply_bound(V, m.mag, m.err, d_, fmt_);
      if (sa.rho == 0)
        next[i] = v.err;
      else if (V.zero && sa.rho == 1)
        next[i] = e_[i];
      else
        next[i] = c2 * (rho * float_inf(i) + v.mag + v.err) + rho * e_[i] + v.err + 2 * fmt_.tiny;
      if (!(next[i] < guard(fmt_))) return where(i) + ": the error bound exceeds " + guard_text(fmt_);
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
double Propagation::attention_reading(const SelfAttention<Rational>& sa, const StructuredBound& V, const VReading& vr,
                                      const Applied& m, double rho_in, std::size_t i, const Applied& v) const {
  double rv = 0;  // >= |r.(fl(Vhat mhat) - V m*)|
  if (!V.zero) {
    const std::size_t k = V.p_inf.size();
    const double cq = dot_rounding(d_, fmt_), cy = dot_rounding(k + 1, fmt_);
    double terms = V.alpha * vr.r_one * m.mag, propagated = V.alpha * vr.r_one * m.err;
    for (std::size_t t = 0; t < k; ++t) {
      const double ec = cq * V.q_one[t] * m.mag + V.q_one[t] * m.err + static_cast<double>(d_) * fmt_.tiny;
      terms = terms + vr.r_abs_p[t] * (V.q_one[t] * m.mag + ec);
      propagated = propagated + vr.r_dot_p[t] * ec;
    }
    rv = cy * terms + propagated + static_cast<double>(k + 1) * fmt_.tiny * vr.r_one;
  }
  const double rho = magnitude_up(sa.rho);
  if (sa.rho == 0) return rv;
  if (V.zero && sa.rho == 1) return rho_in;
  const double c2 = dot_rounding(2, fmt_);
  return c2 * vr.r_one * (rho * float_inf(i) + v.mag + v.err) + rho * rho_in + rv + 2 * fmt_.tiny * vr.r_one;
}

// The float attended average of token i (lem:float-attention): magnitude bound (of both the
// float and the exact value) and error; nullopt with tally.failure set when a decision is not shown.
std::optional<Applied> Propagation::attended_average(const SelfAttention<Rational>& sa, const StructuredBound& A,
                                                     Setting kind, double tau_inv, std::size_t i, std::size_t b0,
                                                     std::size_t b1, const std::vector<double>& one, double xmax,
                                                     double xs, double emax, Tally& tally) {
  const std::size_t n = b1 - b0;
  const double nn = static_cast<double>(n), dd = static_cast<double>(d_);
  if (kind == Setting::hardmax && A.zero) {
    // Every score is exactly 0 in both runs: all tie, m = fl(sum xhat_l) / n.
    const double g = gamma_of(n > 1 ? n - 1 : 0, fmt_);
    return Applied{xmax + g * xmax + emax + fmt_.u * xmax * (1 + g) + nn * fmt_.tiny,
                   g * xmax + emax + fmt_.u * xmax * (1 + g) + nn * fmt_.tiny};
  }
  const Applied a = apply_bound(A, float_inf(i), e_[i], d_, fmt_);
  // Per key l (lem:float-scores): |shat_il - s*_il| <= eps_l; a1 >= |a*|_1.
  double a1 = A.alpha * exact_one(i);
  for (std::size_t t = 0; t < A.p_one.size(); ++t) a1 = a1 + A.p_one[t] * A.q_one[t] * exact_inf(i);
  a1 = std::min(a1, dd * a.mag);
  const double per_one = gamma_of(d_, fmt_) * (a.mag + a.err) + a.err;
  std::vector<double> eps_l(n);
  double eps = 0;  // max_l eps_l (lem:float-attention's eps is at least this)
  for (std::size_t l = 0; l < n; ++l) {
    eps_l[l] = per_one * one[l] + e_[b0 + l] * a1 + dd * fmt_.tiny;
    eps = std::max(eps, eps_l[l]);
  }
  if (!(eps < guard(fmt_) && a.mag * xmax * dd < guard(fmt_))) {
    tally.failure = where(i) + ": the score bounds exceed " + guard_text(fmt_);
    return std::nullopt;
  }
  // |(shat_top - shat_l) - (s*_top - s*_l)|: the query's error a.err enters through
  // |xhat_top - xhat_l|_1, the keys' errors through |a*|_1, roundings through gamma_d (lem:float-scores).
  const double rounding = gamma_of(d_, fmt_) * (a.mag + a.err);
  auto need = [&](std::size_t top, std::size_t l) {
    return rounding * (one[top] + one[l]) + a.err * difference_one(b0 + top, b0 + l) + (e_[b0 + top] + e_[b0 + l]) * a1 +
           2 * dd * fmt_.tiny;
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
  // The run divides scores by tau: |sigma_l| <= (S + eps) t (1 + 2u) must stay below the guard too.
  if (!((S + eps) * tau_inv * (1 + 2 * fmt_.u) < guard(fmt_))) {
    tally.failure = where(i) + ": the scores over tau exceed " + guard_text(fmt_);
    return std::nullopt;
  }
  const double g = gamma_of(n, fmt_);
  const double cm = 2 * g * (1 + 2 * g) * (1 + fmt_.u) + fmt_.u;
  // Both bounds below hold when their hypotheses do; the smaller one is kept.
  std::optional<double> by_gaps;
  if (!A.zero)
    if (auto tail = softmax_tail(sa, i, b0, b1, need, S, eps, tau_inv))  // lem:float-softmax-gaps
      by_gaps = cm * xmax + e_[tail->top] + tail->weighted_error + 2 * tail->weight * xs + nn * 32 * fmt_.tiny;
  const double eps1 = A.zero ? 0 : (eps * (1 + fmt_.u) + 2 * fmt_.u * S) * tau_inv * (1 + 2 * fmt_.u);
  const double eta = eps1 + 2 * fmt_.u * (S * tau_inv + eps1) + 5 * fmt_.u;
  if (!(2 * eta <= 1)) {
    if (by_gaps) return Applied{xs + *by_gaps, *by_gaps};
    tally.failure = where(i) + ": the softmax weights are not controlled (log-weight error bound " +
               approx_decimal(Rational(eta), 3) + " > 1/2)";
    return std::nullopt;
  }
  // >= |pihat - pi|_1; at most 2 (e^{2 eta} - 1)(1 - pi_top) when the exact scores are known.
  const double tail = A.zero ? (n > 1 ? 1 : 0) : tail_weight(sa, i, b0, b1);  // A = 0: gap 0, (n - 1) e^0
  const double dpi = (2 * eta + 4 * eta * eta) * std::min(1.0, 2 * tail) + nn * 16 * fmt_.tiny;
  const double err = std::min(cm * xmax + emax + dpi * xs + nn * 4 * fmt_.tiny, by_gaps.value_or(guard(fmt_)));
  return Applied{xs + err, err};
}

// lem:float-softmax-gaps: with every token of the sequence an exact point and the exact top score
// ahead of every other by more than the error of the score difference (need), the float weights
// of the other keys are at most p_l = e^{(1 - u) D_l} (1 + 4u)(1 + 8u) + 3 eta_0 with
// D_l >= sigma_l - sigma_top < 0; weight >= sum_l p_l, weighted_error >= sum_l p_l e_l.
template <class Need>
std::optional<Propagation::SoftmaxTail> Propagation::softmax_tail(const SelfAttention<Rational>& sa, std::size_t i,
                                                                  std::size_t b0, std::size_t b1, const Need& need,
                                                                  double S, double eps, double tau_inv) {
  for (std::size_t l = b0; l < b1; ++l)
    if (!ref_.point(l)) return std::nullopt;
  const std::vector<Rational> s = exact_scores(sa, i, b0, b1);
  const auto top = static_cast<std::size_t>(std::max_element(s.begin(), s.end()) - s.begin());
  const Rational unit = Rational(fmt_.u);
  // >= the rounding of sigma_l - sigma_top beyond (shat_l - shat_top) / tauhat
  const Rational shift = 2 * unit * Rational(S + eps) * Rational(tau_inv) * (1 + 2 * unit);
  SoftmaxTail tail{b0 + top, 0, 0};
  for (std::size_t l = 0; l < s.size(); ++l) {
    if (l == top) continue;
    const Rational D = -(s[top] - s[l] - Rational(need(top, l))) / (tau_ * (1 + unit)) + shift;
    if (D >= 0) return std::nullopt;
    const double e = magnitude_up(exp(Interval(D * (1 - unit), 64)).upper());
    const double p = (e * (1 + 4 * fmt_.u)) * (1 + 8 * fmt_.u) + 3 * fmt_.tiny;
    tail.weight = tail.weight + p;
    tail.weighted_error = tail.weighted_error + p * e_[b0 + l];
  }
  return tail;
}

// An upper bound on 1 - pi_top <= (n - 1) e^{-gap/tau} from token i's exact scores (gap to
// the second best), or 1 when some token of the sequence is not an exact point.
double Propagation::tail_weight(const SelfAttention<Rational>& sa, std::size_t i, std::size_t b0, std::size_t b1) {
  if (b1 - b0 == 1) return 0;
  for (std::size_t l = b0; l < b1; ++l)
    if (!ref_.point(l)) return 1;
  const Rational gap = exact_gap(sa, i, b0, b1).second;
  const Interval tail = exp(Interval(-gap / tau_, 64)) * Rational(static_cast<long>(b1 - b0 - 1));
  return magnitude_up(tail.upper());
}

// Token i's exact scores against the tokens of its sequence (all exact points).
std::vector<Rational> Propagation::exact_scores(const SelfAttention<Rational>& sa, std::size_t i, std::size_t b0,
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
std::optional<std::size_t> Propagation::argmax_by_enclosures(const SelfAttention<Rational>& sa, std::size_t i,
                                                             std::size_t b0, std::size_t b1, const Need& need_of,
                                                             Tally& tally) const {
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
std::pair<std::size_t, Rational> Propagation::exact_gap(const SelfAttention<Rational>& sa, std::size_t i,
                                                        std::size_t b0, std::size_t b1) const {
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
std::size_t Propagation::exact_argmax(const SelfAttention<Rational>& sa, std::size_t i, std::size_t b0, std::size_t b1,
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

}  // namespace seqi::float_run_detail
