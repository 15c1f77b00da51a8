#include "seqi/construction/hats.hpp"

#include "seqi/construction/balance_units.hpp"

namespace seqi {
namespace {

// w units all reading r, with offsets -breakpoint_i and output columns cols[i], each unit
// balanced as it is built (balance_unit, lem:relu-rescaling; |r|^2 computed once).
FeedForward<Rational> one_direction_layer(const Point& r, const std::vector<Rational>& breakpoints,
                                          const std::vector<Point>& cols) {
  const auto w = static_cast<Eigen::Index>(breakpoints.size());
  FeedForward<Rational> ff;
  ff.eta = 1;
  ff.U.resize(w, r.size());
  ff.b.resize(w);
  ff.W.resize(r.size(), w);
  const Rational rr = norm_sq(r);
  for (Eigen::Index i = 0; i < w; ++i) {
    ff.U.row(i) = r.transpose();
    ff.b[i] = -breakpoints[static_cast<std::size_t>(i)];
    ff.W.col(i) = cols[static_cast<std::size_t>(i)];
    balance_unit(ff, i, rr + ff.b[i] * ff.b[i], norm_sq(cols[static_cast<std::size_t>(i)]));
  }
  return ff;
}

}  // namespace

FeedForward<Rational> hat_layer(const Point& r, const Rational& t_q, const Rational& delta,
                                const Point& D) {
  Point s = D / delta;
  return one_direction_layer(r, {t_q - delta, t_q, t_q + delta}, {s, Point(s * Rational(-2)), s});
}

// lem:plateau-hat: breakpoints t_q -/+ delta, t_q -/+ p; slopes sigma (1, -1, -1, 1), sigma = 1 / (delta - p).
FeedForward<Rational> plateau_hat_layer(const Point& r, const Rational& t_q, const Rational& delta, const Point& D) {
  const Rational p = delta * plateau_fraction();
  Point s = D / (delta - p);
  return one_direction_layer(r, {t_q - delta, t_q - p, t_q + p, t_q + delta}, {s, Point(-s), Point(-s), s});
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
  ff.U.conservativeResize(4, d);
  ff.U.row(3).setZero();
  ff.b.conservativeResize(4);
  ff.b[3] = 1;  // relu(0.x + 1) = 1: a constant unit
  ff.W.conservativeResize(d, 4);
  ff.W.col(3) = C_e1;
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
  const Rational b1 = z_lo - 2 * df, b2 = z_lo - df, b3 = z_hi + df, b4 = z_hi + 2 * df;
  Point c1 = (y - v * b2) / (b2 - b1);
  Point c4 = (y - v * b3) / (b4 - b3);
  Point c2 = -v - c1;
  Point c3 = v - c4;
  return one_direction_layer(r, {b1, b2, b3, b4}, {c1, c2, c3, c4});
}

}  // namespace seqi
