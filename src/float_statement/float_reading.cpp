#include "seqi/float_statement/float_reading.hpp"

#include <algorithm>
#include <cmath>

#include "seqi/numbers/upward.hpp"

namespace seqi {

std::optional<Rational> multiple_of(const Point& r, const Point& previous) {
  if (r.size() != previous.size()) return std::nullopt;
  Eigen::Index pivot = 0;
  while (pivot < previous.size() && previous[pivot] == 0) ++pivot;
  if (pivot == previous.size()) return std::nullopt;
  const Rational lambda = r[pivot] / previous[pivot];
  const bool same = lambda == 1;  // the common case: compared without products
  for (Eigen::Index c = 0; c < r.size(); ++c)
    if (same ? r[c] != previous[c] : r[c] != lambda * previous[c]) return std::nullopt;
  return lambda;
}

namespace {

// Upper bounds on sum_c |x_c| |y_c| (abs) and |x . y| (dot) from the operands' MidRad enclosures
// (no rational product): the mids' dot s computed upward errs by at most gamma_n(2^-52) sum
// |a_c b_c| plus n products' underflow (2^-1074 each, doubled for the sums that carry them), and
// the radii add sum |a_c| beta_c + alpha_c (|b_c| + beta_c). Zero entries are skipped (exact zero
// products). Requires UpwardRounding.
struct DotBounds {
  double abs = 0, dot = 0;
};
template <class Y>
DotBounds dot_bounds(const std::vector<MidRad>& x, const Y& y) {
  double s = 0, mids = 0, radii = 0;
  std::size_t n = 0;
  for (std::size_t c = 0; c < x.size(); ++c) {
    const Rational& yc = y(c);
    if ((x[c].mid == 0 && x[c].rad == 0) || yc == 0) continue;  // {0, 0}: x_c = 0 exactly (mid_rads)
    const MidRad b = mid_rad(yc);
    const double am = std::fabs(x[c].mid), bm = std::fabs(b.mid);
    s = s + x[c].mid * b.mid;
    mids = mids + am * bm;
    radii = radii + am * b.rad + x[c].rad * (bm + b.rad);
    ++n;
  }
  const double under = 2 * static_cast<double>(n) * 0x1p-1074;
  return {mids + radii + under, std::fabs(s) + gamma_up(n, 0x1p-52) * mids + under + radii};
}

std::vector<MidRad> mid_rads(const Point& r) {
  std::vector<MidRad> out;
  out.reserve(static_cast<std::size_t>(r.size()));
  for (Eigen::Index c = 0; c < r.size(); ++c) out.push_back(r[c] == 0 ? MidRad{0, 0} : mid_rad(r[c]));
  return out;
}

}  // namespace

VReading v_reading(const StructuredMatrix<Rational>& V, const Point& r) {
  expect_upward_rounding("v_reading");
  VReading v;
  const std::vector<MidRad> rm = mid_rads(r);
  for (const MidRad& m : rm) v.r_one = v.r_one + (std::fabs(m.mid) + m.rad);
  for (const auto& t : V.terms) {
    const DotBounds b = dot_bounds(rm, [&](std::size_t c) -> const Rational& { return t.p[static_cast<Eigen::Index>(c)]; });
    v.r_abs_p.push_back(b.abs);
    v.r_dot_p.push_back(b.dot);
  }
  return v;
}

ReadingLayer reading_layer(const FeedForward<Rational>& ff, const OneDirectionForm& form,
                           const std::optional<Point>& previous) {
  expect_upward_rounding("reading_layer");
  ReadingLayer l;
  l.r = form.r;
  const std::vector<MidRad> rm = mid_rads(form.r);
  for (const MidRad& m : rm) {
    l.r_mag.push_back(std::fabs(m.mid) + m.rad);
    l.r_one = l.r_one + l.r_mag.back();
  }
  const Mat<Rational> W = ff.W.dense();
  for (std::size_t k = 0; k < form.slope.size(); ++k) {
    const auto kk = static_cast<Eigen::Index>(k);
    l.slope.push_back(magnitude_up(form.slope[k]));
    l.slope_sign.push_back(form.slope[k] > 0 ? 1 : form.slope[k] < 0 ? -1 : 0);
    const DotBounds b = dot_bounds(rm, [&](std::size_t c) -> const Rational& { return W(static_cast<Eigen::Index>(c), kk); });
    l.r_abs_w.push_back(b.abs);
    l.r_dot_w.push_back(b.dot);
  }
  if (previous)
    if (auto lambda = multiple_of(form.r, *previous)) l.scale = magnitude_up(*lambda);
  return l;
}

}  // namespace seqi
