#include "seqi/forward/carried_token.hpp"

namespace seqi {

std::pair<Rational, Rational> CarriedToken::reading(const Point& r) const {
  const Rational base = dot(r, p);
  if (is_exact()) return {base, base};
  const Rational slope = dot(r, *w);
  const Rational a = base + slope * lo, b = base + slope * hi;
  return a <= b ? std::pair{a, b} : std::pair{b, a};
}

std::optional<CarriedToken> apply_carried(const FeedForward<Rational>& ff, const CarriedToken& x,
                                          std::size_t* straddling_unit) {
  const bool exact = x.is_exact();
  CarriedToken y{x.p * ff.eta, nullptr, x.lo, x.hi};
  std::optional<Point> w;  // the image's direction, once it differs from x's
  if (!exact && ff.eta != 1) w = Point(x.direction() * ff.eta);
  for (Eigen::Index i = 0; i < ff.U.rows(); ++i) {
    // Pre-activation g(c) = base + c * slope is affine in c: its sign over [lo, hi] is
    // decided by the two endpoints, exactly.
    const Rational base = ff.U.row(i).dot(x.p.transpose()) + ff.b[i];
    const Rational slope = exact ? Rational(0) : Rational(ff.U.row(i).dot(x.direction().transpose()));
    const Rational at_lo = base + slope * x.lo, at_hi = base + slope * x.hi;
    if ((at_lo < 0 && at_hi > 0) || (at_lo > 0 && at_hi < 0)) {
      if (straddling_unit) *straddling_unit = static_cast<std::size_t>(i) + 1;
      return std::nullopt;
    }
    if (at_lo > 0 || at_hi > 0) {  // active on the whole enclosure (zero at most at an end)
      y.p += ff.W.col(i) * base;
      if (slope != 0) {
        if (!w) w = x.direction();
        *w += ff.W.col(i) * slope;
      }
    }
  }
  if (exact || (w && w->isZero())) {  // an exact point: stored as exact() stores it
    y.lo = y.hi = 0;
    return y;
  }
  y.w = w && !equal_points(*w, x.direction()) ? std::make_shared<const Point>(std::move(*w)) : x.w;
  return y;
}

}  // namespace seqi
