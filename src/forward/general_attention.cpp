#include "seqi/forward/general_attention.hpp"

#include <algorithm>

#include "seqi/forward/softmax_weights.hpp"

namespace seqi {
namespace {

bool all_exact(const std::vector<AffineEnclosure>& X) {
  return std::all_of(X.begin(), X.end(), [](const AffineEnclosure& x) { return x.is_exact(); });
}

// The enclosure rho * x (exact scaling of centre and generators).
AffineEnclosure scaled(const AffineEnclosure& x, const Rational& rho) {
  return map_affine(x, [&](const Point& v) -> Point { return v * rho; }, Point::Zero(x.p.size()));
}

// V (x_r + sum_l w_l d_l) for exact x_r, d_l and weight enclosures w_l. Generators V d_l
// (coefficients w_l) when there are at most d of them; otherwise V y through its structure:
// alpha e_r with y_r and p_t with q_t . y, where y_r and q_t . y are sums over l with each
// w_l once.
AffineEnclosure value_of_mixture(const StructuredMatrix<Rational>& V, const Point& x_r, const std::vector<Point>& diffs,
                                 const std::vector<Interval>& w, unsigned prec) {
  AffineEnclosure out{V.apply(x_r), {}, {}};
  const std::size_t d = static_cast<std::size_t>(x_r.size());
  if (diffs.size() <= d) {
    for (std::size_t l = 0; l < diffs.size(); ++l) {
      out.g.push_back(V.apply(diffs[l]));
      out.c.push_back(w[l]);
    }
  } else {
    auto coefficient = [&](auto&& weight_of) {
      std::vector<Interval> terms{Interval(Rational(0), prec)};
      for (std::size_t l = 0; l < diffs.size(); ++l)
        if (const Rational a = weight_of(diffs[l]); a != 0) terms.push_back(a * w[l]);
      return sum(terms);
    };
    if (V.alpha != 0)
      for (std::size_t r = 0; r < d; ++r) {
        const auto ri = static_cast<Eigen::Index>(r);
        out.g.push_back(Point::Unit(static_cast<Eigen::Index>(d), ri) * V.alpha);
        out.c.push_back(coefficient([&](const Point& v) { return v[ri]; }));
      }
    for (const auto& t : V.terms) {
      out.g.push_back(t.p);
      out.c.push_back(coefficient([&](const Point& v) { return dot(t.q, v); }));
    }
  }
  drop_zero_generators(out);
  return out;
}

// V (xhat + y) for an exact xhat and an interval box y.
AffineEnclosure value_of_box(const StructuredMatrix<Rational>& V, const Point& xhat, const IntervalBox& y) {
  AffineEnclosure out{V.apply(xhat), {}, {}};
  const auto d = static_cast<Eigen::Index>(xhat.size());
  if (V.alpha != 0)
    for (Eigen::Index r = 0; r < d; ++r) {
      out.g.push_back(Point::Unit(d, r) * V.alpha);
      out.c.push_back(y[static_cast<std::size_t>(r)]);
    }
  for (const auto& t : V.terms) {
    out.g.push_back(t.p);
    out.c.push_back(dot(t.q, y));
  }
  drop_zero_generators(out);
  return out;
}

// rho x_i + value, coefficients of the two parts taken independently (a superset).
AffineEnclosure combine(const AffineEnclosure& xi, const Rational& rho, const AffineEnclosure& value, unsigned prec) {
  AffineEnclosure out = rho == 0 ? value : add_independent(scaled(xi, rho), value);
  limit_generators(out, prec);
  return out;
}

// Weights exactly uniform (A = 0): rho x_i + V mean(X), exact when every token is.
std::vector<AffineEnclosure> uniform_attention(const SelfAttention<Rational>& sa, const std::vector<AffineEnclosure>& X,
                                               unsigned prec) {
  const Rational inv_n(1, static_cast<long>(X.size()));
  AffineEnclosure mean{Point::Zero(X.front().p.size()), {}, {}};
  for (const auto& x : X) mean = add_independent(mean, scaled(x, inv_n));
  limit_generators(mean, prec);
  const AffineEnclosure value = map_affine(mean, [&](const Point& v) { return sa.V.apply(v); }, Point::Zero(mean.p.size()));
  std::vector<AffineEnclosure> out;
  for (const auto& x : X) out.push_back(combine(x, sa.rho, value, prec));
  return out;
}

// Every token exact: exact scores; exact output when the token's scores all tie or every
// V x_l is the same point.
std::vector<AffineEnclosure> attention_on_exact(const SelfAttention<Rational>& sa, const std::vector<AffineEnclosure>& X,
                                                const Rational& tau, unsigned prec, AttentionCounts& counts) {
  const std::size_t n = X.size();
  bool values_equal = true;
  for (std::size_t l = 1; l < n && values_equal; ++l) values_equal = sa.V.apply(X[l].p - X[0].p).isZero();
  std::vector<AffineEnclosure> out;
  out.reserve(n);
  std::vector<Rational> s(n);
  for (const auto& xi : X) {
    if (values_equal) {  // sum_l pi_l V x_l = V x_0 whatever the weights
      out.push_back(AffineEnclosure::exact(xi.p * sa.rho + sa.V.apply(X[0].p)));
      ++counts.exact_weights;
      continue;
    }
    const Point Axi = sa.A.apply(xi.p);
    for (std::size_t l = 0; l < n; ++l) s[l] = dot(Axi, X[l].p);
    if (auto w = exact_softmax_weights(s)) {  // all scores tie: weights exactly 1/n
      Point mean = Point::Zero(xi.p.size());
      for (const auto& x : X) mean += x.p;
      out.push_back(AffineEnclosure::exact(xi.p * sa.rho + sa.V.apply(mean * (*w)[0])));
      ++counts.exact_weights;
      continue;
    }
    const auto w = softmax_weights(s, tau, prec);
    const std::size_t r = static_cast<std::size_t>(std::max_element(s.begin(), s.end()) - s.begin());
    std::vector<Point> diffs;
    std::vector<Interval> wl;
    for (std::size_t l = 0; l < n; ++l)
      if (l != r && !(X[l].p - X[r].p).isZero()) {  // sum_l w_l = 1: x = x_r + sum_{l != r} w_l (x_l - x_r)
        diffs.push_back(X[l].p - X[r].p);
        wl.push_back(w[l]);
      }
    out.push_back(combine(xi, sa.rho, value_of_mixture(sa.V, X[r].p, diffs, wl, prec), prec));
    ++counts.enclosed_weights;
  }
  return out;
}

// Some token enclosed: interval scores and weights; x = xhat + sum_l w_l (x_l - xhat).
std::vector<AffineEnclosure> attention_on_enclosures(const SelfAttention<Rational>& sa,
                                                     const std::vector<AffineEnclosure>& X, const Rational& tau,
                                                     unsigned prec, AttentionCounts& counts) {
  const std::size_t n = X.size();
  std::vector<IntervalBox> B;
  for (const auto& x : X) B.push_back(box_of(x, prec));
  IntervalBox all = B.front();
  for (const auto& b : B) all = hull(all, b);
  const Point xhat = midpoint(all);
  std::vector<IntervalBox> D;
  for (const auto& b : B) {
    IntervalBox dl;
    for (std::size_t r = 0; r < b.size(); ++r) dl.push_back(b[r] - xhat[static_cast<Eigen::Index>(r)]);
    D.push_back(std::move(dl));
  }
  std::vector<AffineEnclosure> out;
  for (std::size_t i = 0; i < n; ++i) {
    // A x_i = alpha x_i + sum_t p_t (q_t . x_i) on the box of x_i.
    IntervalBox Axi;
    for (const auto& xr : B[i]) Axi.push_back(xr * sa.A.alpha);
    for (const auto& t : sa.A.terms) {
      const Interval qx = dot(t.q, B[i]);
      for (std::size_t r = 0; r < Axi.size(); ++r) Axi[r] += t.p[static_cast<Eigen::Index>(r)] * qx;
    }
    std::vector<Interval> s;
    for (std::size_t l = 0; l < n; ++l) s.push_back(dot(Axi, B[l]));
    const auto w = softmax_weights(s, tau);
    IntervalBox y;
    for (std::size_t r = 0; r < static_cast<std::size_t>(xhat.size()); ++r) {
      std::vector<Interval> terms;
      for (std::size_t l = 0; l < n; ++l) terms.push_back(w[l] * D[l][r]);
      y.push_back(sum(terms));
    }
    out.push_back(combine(X[i], sa.rho, value_of_box(sa.V, xhat, y), prec));
    ++counts.enclosed_weights;
  }
  return out;
}

}  // namespace

std::vector<AffineEnclosure> softmax_attention_enclosure(const SelfAttention<Rational>& sa,
                                                         const std::vector<AffineEnclosure>& X, const Rational& tau,
                                                         unsigned precision_bits, AttentionCounts* counts) {
  AttentionCounts local;
  AttentionCounts& c = counts ? *counts : local;
  if (X.empty() || sa.is_identity()) return X;
  if (X.size() == 1) {  // the only weight is exactly 1: (rho I + V) x
    ++c.exact_weights;
    return {map_affine(X[0], [&](const Point& v) -> Point { return v * sa.rho + sa.V.apply(v); },
                       Point::Zero(X[0].p.size()))};
  }
  if (sa.V.is_zero()) {  // rho x_i
    std::vector<AffineEnclosure> out;
    for (const auto& x : X) out.push_back(scaled(x, sa.rho));
    c.exact_weights += X.size();
    return out;
  }
  if (sa.A.is_zero()) {
    c.exact_weights += X.size();
    return uniform_attention(sa, X, precision_bits);
  }
  return all_exact(X) ? attention_on_exact(sa, X, tau, precision_bits, c)
                      : attention_on_enclosures(sa, X, tau, precision_bits, c);
}

}  // namespace seqi
