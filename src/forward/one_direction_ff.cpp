#include "seqi/forward/one_direction_ff.hpp"

#include "seqi/numbers/dyadic.hpp"

namespace seqi {
namespace {

// Slope and offset of t -> sum_{i active} W_i (slope_i t + b_i) vanish (exact): W applied to
// the active units' slopes and offsets.
bool pattern_is_zero(const FeedForward<Rational>& ff, const std::vector<Rational>& slope,
                     const std::vector<bool>& active) {
  Point s = Point::Zero(ff.W.cols()), c = Point::Zero(ff.W.cols());
  for (std::size_t i = 0; i < slope.size(); ++i)
    if (active[i]) s[static_cast<Eigen::Index>(i)] = slope[i], c[static_cast<Eigen::Index>(i)] = ff.b[static_cast<Eigen::Index>(i)];
  return ff.W.apply(s).isZero() && ff.W.apply(c).isZero();
}

// U's first nonzero row and that row's first nonzero column. Read from the factors when U is
// one column times one row (every row then a multiple of that row).
std::optional<std::pair<Eigen::Index, Eigen::Index>> leading_entry(const FactoredMatrix<Rational>& U) {
  const bool one_row = U.factored() && U.inner() == 1;
  for (Eigen::Index i = 0; i < U.rows(); ++i) {
    if (one_row && U.left()(i, 0) == 0) continue;
    for (Eigen::Index k = 0; k < U.cols(); ++k)
      if (one_row ? U.right()(0, k) != 0 : U(i, k) != 0) return std::pair{i, k};
    if (one_row) return std::nullopt;
  }
  return std::nullopt;
}

}  // namespace

std::optional<OneDirectionForm> one_direction_form(const FeedForward<Rational>& ff) {
  const Eigen::Index w = ff.U.rows(), d = ff.U.cols();
  const auto leading = leading_entry(ff.U);
  if (!leading) return std::nullopt;
  const auto [lead_row, pivot] = *leading;
  const bool rows_are_multiples = ff.U.factored() && ff.U.inner() == 1;  // of U's right factor
  // Canonical representative of the direction up to powers of two, |r[pivot]| in [1, 2): layers
  // whose units were rescaled by powers of two (lem:relu-rescaling) share one reading index.
  Point lead = ff.U.row(lead_row).transpose();
  lead *= pow2(-floor_log2(abs(lead[pivot])));
  OneDirectionForm form{std::move(lead), {}, 0, 0, false, false};
  std::vector<bool> left(w), right(w);
  for (Eigen::Index i = 0; i < w; ++i) {
    Rational u = ff.U(i, pivot) / form.r[pivot];
    for (Eigen::Index k = 0; k < d && !rows_are_multiples; ++k)
      if (ff.U(i, k) != u * form.r[k]) return std::nullopt;
    form.slope.push_back(u);
    // Far left (t -> -inf) the unit is active iff u < 0 or (u = 0 and b > 0); far right iff u > 0 or ...
    left[i] = u < 0 || (u == 0 && ff.b[i] > 0);
    right[i] = u > 0 || (u == 0 && ff.b[i] > 0);
    if (u == 0) continue;
    Rational beta = -ff.b[i] / u;
    if (!form.has_breakpoint || beta < form.lo) form.lo = beta;
    if (!form.has_breakpoint || beta > form.hi) form.hi = beta;
    form.has_breakpoint = true;
  }
  form.identity_outside = ff.eta == 1 && form.has_breakpoint && pattern_is_zero(ff, form.slope, left) &&
                          pattern_is_zero(ff, form.slope, right);
  return form;
}

std::optional<OneDirectionForm> identity_outside_breakpoints(const FeedForward<Rational>& ff) {
  auto form = one_direction_form(ff);
  if (!form || !form->identity_outside) return std::nullopt;
  return form;
}

Point apply_one_direction(const FeedForward<Rational>& ff, const OneDirectionForm& form, const Point& x,
                          const Rational& t) {
  Point y = ff.eta == 1 ? x : Point(x * ff.eta);
  Point active = Point::Zero(ff.W.cols());
  bool any = false;
  for (std::size_t i = 0; i < form.slope.size(); ++i) {
    const auto k = static_cast<Eigen::Index>(i);
    Rational pre = form.slope[i] * t + ff.b[k];
    if (pre > 0) active[k] = std::move(pre), any = true;
  }
  if (any) y += ff.W.apply(active);
  return y;
}

}  // namespace seqi
