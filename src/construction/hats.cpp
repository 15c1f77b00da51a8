#include "seqi/construction/hats.hpp"

#include "seqi/construction/balance_units.hpp"

namespace seqi {
namespace {

using Factor = std::shared_ptr<Mat<Rational>>;

Factor row_factor(const Point& r) { return std::make_shared<Mat<Rational>>(r.transpose()); }
Factor column_factor(const Point& c) { return std::make_shared<Mat<Rational>>(c); }
Factor coefficients(std::initializer_list<Rational> q) {
  auto f = std::make_shared<Mat<Rational>>(1, static_cast<Eigen::Index>(q.size()));
  Eigen::Index i = 0;
  for (const auto& x : q) (*f)(0, i++) = x;
  return f;
}

// w units all reading r (U = 1 r^T, r a 1 x d row shared with other layers, rr = |r|^2), with
// offsets -breakpoint_i and output columns W = P Q, each unit balanced as it is built
// (balance_unit, lem:relu-rescaling).
FeedForward<Rational> one_direction_layer(const Factor& r, const Rational& rr, const std::vector<Rational>& breakpoints,
                                          const Factor& P, Factor Q) {
  const auto w = static_cast<Eigen::Index>(breakpoints.size());
  FeedForward<Rational> ff;
  ff.eta = 1;
  ff.U = FactoredMatrix<Rational>::product(std::make_shared<Mat<Rational>>(Mat<Rational>::Constant(w, 1, Rational(1))), r);
  ff.b.resize(w);
  ff.W = FactoredMatrix<Rational>::product(P, std::move(Q));
  for (Eigen::Index i = 0; i < w; ++i) {
    ff.b[i] = -breakpoints[static_cast<std::size_t>(i)];
    balance_unit(ff, i, rr + ff.b[i] * ff.b[i], ff.W.col(i).squaredNorm());
  }
  return ff;
}

}  // namespace

FeedForward<Rational> hat_layer(const Point& r, const Rational& t_q, const Rational& delta,
                                const Point& D) {
  return one_direction_layer(row_factor(r), norm_sq(r), {t_q - delta, t_q, t_q + delta}, column_factor(D / delta),
                             coefficients({1, -2, 1}));
}

// lem:plateau-hat: breakpoints t_q -/+ delta, t_q -/+ p; slopes sigma (1, -1, -1, 1), sigma = 1 / (delta - p).
FeedForward<Rational> plateau_hat_layer(const Point& r, const Rational& t_q, const Rational& delta, const Point& D) {
  const Rational p = delta * plateau_fraction();
  return one_direction_layer(row_factor(r), norm_sq(r), {t_q - delta, t_q - p, t_q + p, t_q + delta},
                             column_factor(D / (delta - p)), coefficients({1, -1, -1, 1}));
}

std::size_t plateau_hats_within_bound(std::size_t d, std::size_t sum_m, std::size_t lifts, bool shift_used,
                                      std::size_t runs) {
  if (sum_m == 0) return 0;
  // lem:fewer-blocks-count: (6d+7)(sum(m) + K) + (8d+8) runs + 4d + 1 + 2d[shift].
  const Integer D(d), S(sum_m), K(lifts), R(runs);
  const Integer used = (6 * D + 7) * (S + K) + (8 * D + 8) * R + 4 * D + 1 + (shift_used ? Integer(2 * D) : Integer(0));
  const Integer bound = (20 * D + 22) * S;
  if (used >= bound) return 0;
  const Integer fit = (bound - used) / (2 * D + 1);
  return fit >= S + K - 1 ? sum_m + lifts - 1 : static_cast<std::size_t>(fit);
}

FeedForward<Rational> shrink_hat_layer(const Point& r, const Rational& t_q, const Rational& delta,
                                       const Point& D, const Rational& eps, const Point& C_e1) {
  FeedForward<Rational> ff = hat_layer(r, t_q, delta, D);
  const Eigen::Index d = r.size();
  ff.eta = eps;
  ff.U.edit().conservativeResize(4, d);
  ff.U.edit().row(3).setZero();
  ff.b.conservativeResize(4);
  ff.b[3] = 1;  // relu(0.x + 1) = 1: a constant unit
  ff.W.edit().conservativeResize(d, 4);
  ff.W.edit().col(3) = C_e1;
  balance_unit(ff, 3, 1, norm_sq(C_e1));
  return ff;
}

FeedForward<Rational> constant_layer(const Point& c) {
  FeedForward<Rational> ff;
  ff.eta = 1;
  ff.U = Mat<Rational>::Zero(1, c.size());
  ff.b = Vec<Rational>::Constant(1, Rational(1));
  ff.W = c;
  balance_unit(ff, 0, 1, norm_sq(c));
  return ff;
}

FeedForward<Rational> flat_hat_layer(const Point& r, const Point& v, const Rational& z,
                                     const Rational& df, const Point& y) {
  return flat_run_layer(r, v, z, z, df, y);
}

FeedForward<Rational> flat_run_layer(const Point& r, const Point& v, const Rational& z_lo, const Rational& z_hi,
                                     const Rational& df, const Point& y) {
  Mat<Rational> yv(y.size(), 2);
  yv << y, v;
  return flat_run_layer(FlatRunFactors{row_factor(r), norm_sq(r), std::make_shared<Mat<Rational>>(std::move(yv))}, z_lo,
                        z_hi, df);
}

// Columns c1 = (y - b2 v) / (b2 - b1), c2 = -v - c1, c3 = v - c4, c4 = (y - b3 v) / (b4 - b3), as
// coefficients of [y v].
FeedForward<Rational> flat_run_layer(const FlatRunFactors& f, const Rational& z_lo, const Rational& z_hi,
                                     const Rational& df) {
  const Rational b1 = z_lo - 2 * df, b2 = z_lo - df, b3 = z_hi + df, b4 = z_hi + 2 * df;
  const Rational in = 1 / (b2 - b1), out = 1 / (b4 - b3);
  auto Q = std::make_shared<Mat<Rational>>(2, 4);
  *Q << in, -in, -out, out,  //
      -b2 * in, b2 * in - 1, 1 + b3 * out, -b3 * out;
  return one_direction_layer(f.reading, f.reading_norm_sq, {b1, b2, b3, b4}, f.target_and_v, std::move(Q));
}

SharedFlatFactors::SharedFlatFactors(const Point& r, const Point& v) : reading_norm_sq_(norm_sq(r)) {
  side_[0].reading = row_factor(r), side_[0].v = v;
  side_[1].reading = row_factor(-r), side_[1].v = -v;
}

FlatRunFactors SharedFlatFactors::of(const Point& y, bool mirrored) {
  Side& side = side_[mirrored ? 1 : 0];
  auto [it, fresh] = side.targets.try_emplace(y);
  if (fresh) {
    it->second = std::make_shared<Mat<Rational>>(y.size(), 2);
    *it->second << y, side.v;
  }
  return {side.reading, reading_norm_sq_, it->second};
}

}  // namespace seqi
