// The bounds of the float64 run that depend on the weights alone (proofs/float-run.tex): the range
// of lem:float-run, lem:float-structured (structured products), the magnitudes of a feed-forward
// layer (lem:float-ff), prepared per layer on the threads, and the norms of its activation patterns.
#include "float_statement/weight_bounds.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "seqi/core/parallel.hpp"

namespace seqi::float_run_detail {

double gamma_of(std::size_t n, const FloatFormat& f) {
  if (static_cast<double>(n) * f.u > 0.25) return std::numeric_limits<double>::infinity();
  return gamma_up(n, f.u);
}

double dot_rounding(std::size_t n, const FloatFormat& f) { return gamma_of(n, f) * (1 + f.u) + f.u; }

bool in_relative_range(const Rational& w, const FloatFormat& f) {
  if (w == 0) return true;
  const double m = magnitude_up(w);  // >= |w|, at most one ulp above: |w| >= 2^-range when m >= 2^(1 - range)
  return std::isfinite(m) && m <= std::ldexp(1.0, f.range) && m >= std::ldexp(1.0, 1 - f.range);
}

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

std::optional<std::string> structured_range(const StructuredMatrix<Rational>& m, const std::string& what,
                                            const FloatFormat& f) {
  if (auto bad = out_of_range(m.alpha, what + " alpha", f)) return bad;
  for (const auto& t : m.terms)
    for (Eigen::Index c = 0; c < t.p.size(); ++c) {
      if (auto bad = out_of_range(t.p[c], what + " p", f)) return bad;
      if (auto bad = out_of_range(t.q[c], what + " q", f)) return bad;
    }
  return std::nullopt;
}

Applied apply_bound(const StructuredBound& s, double x, double ex, std::size_t d, const FloatFormat& f) {
  if (s.zero) return {0, 0};
  const std::size_t k = s.p_inf.size();
  const double tiny = f.tiny;
  const double cq = dot_rounding(d, f), cy = dot_rounding(k + 1, f);
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

FFBound ff_bound(const FeedForward<Rational>& ff) {
  FFBound f;
  f.w = ff.width();
  f.d = static_cast<std::size_t>(ff.U.cols());
  const Mat<Rational> U = ff.U.dense(), W = ff.W.dense();
  f.eta = magnitude_up(ff.eta);
  f.eta_one = ff.eta == 1;
  for (std::size_t k = 0; k < f.w; ++k) {
    const auto kk = static_cast<Eigen::Index>(k);
    double one = 0, col = 0;
    for (std::size_t c = 0; c < f.d; ++c) {
      const MidRad m = mid_rad(U(kk, static_cast<Eigen::Index>(c)));
      f.u_mid.push_back(m.mid);
      f.u_mag.push_back(std::fabs(m.mid) + m.rad);
      one = one + f.u_mag.back();
      col = std::max(col, magnitude_up(W(static_cast<Eigen::Index>(c), kk)));
    }
    const MidRad b = mid_rad(ff.b[kk]);
    f.b_mid.push_back(b.mid);
    f.b_mag.push_back(std::fabs(b.mid) + b.rad);
    f.u_one.push_back(one);
    std::size_t nonzero = 0;
    for (std::size_t c = 0; c < f.d; ++c) nonzero += U(kk, static_cast<Eigen::Index>(c)) != 0;
    f.zero_row.push_back(nonzero == 0);
    f.terms = std::max(f.terms, nonzero + 1);
    f.w_col.push_back(col);
  }
  return f;
}

std::optional<std::string> ff_range(const FeedForward<Rational>& ff, const FloatFormat& f) {
  if (auto bad = out_of_range(ff.eta, "eta", f)) return bad;
  const Mat<Rational> U = ff.U.dense(), W = ff.W.dense();
  for (Eigen::Index i = 0; i < U.size(); ++i)
    if (auto bad = out_of_range(U.data()[i], "an entry of U", f)) return bad;
  for (Eigen::Index i = 0; i < W.size(); ++i)
    if (auto bad = out_of_range(W.data()[i], "an entry of W", f)) return bad;
  for (Eigen::Index i = 0; i < ff.b.size(); ++i)
    if (auto bad = out_of_range(ff.b[i], "an entry of b", f)) return bad;
  return std::nullopt;
}

LayerPrep prepare_layer(const FeedForward<Rational>& ff, const std::vector<FloatFormat>& formats) {
  expect_upward_rounding("prepare_layer");
  LayerPrep p;
  bool any_in_range = false;
  for (const FloatFormat& f : formats) {
    p.out_of_range.push_back(ff_range(ff, f));
    any_in_range = any_in_range || !p.out_of_range.back();
  }
  if (!any_in_range) return p;
  p.f = ff_bound(ff);
  p.one = one_direction_form(ff);
  if (p.one && p.one->identity_outside) p.sparse_reading = reading_layer(ff, *p.one, p.one->r);
  return p;
}

void LayerPreps::fill_from(std::size_t b) {
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
    preps_[k] = prepare_layer(ff, formats_);
  });
}

PatternBound PatternNorms::operator()(const std::vector<char>& active) {
  expect_upward_rounding("PatternNorms");
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

}  // namespace seqi::float_run_detail
