#include "seqi/forward/one_direction_ff.hpp"

#include "seqi/numbers/dyadic.hpp"

namespace seqi {
namespace {

// Slope and offset of t -> sum_{i active} W_i (slope_i t + b_i) vanish (exact).
bool pattern_is_zero(const FeedForward<Rational>& ff, const std::vector<Rational>& slope,
                     const std::vector<bool>& active) {
  // Coordinate by coordinate, skipping zero weights (no temporary vectors).
  Rational s, c;
  for (Eigen::Index k = 0; k < ff.W.rows(); ++k) {
    s = 0, c = 0;
    for (std::size_t i = 0; i < slope.size(); ++i) {
      const auto col = static_cast<Eigen::Index>(i);
      if (!active[i] || ff.W(k, col) == 0) continue;
      s += ff.W(k, col) * slope[i];
      c += ff.W(k, col) * ff.b[col];
    }
    if (s != 0 || c != 0) return false;
  }
  return true;
}

}  // namespace

std::optional<OneDirectionForm> one_direction_form(const FeedForward<Rational>& ff) {
  const Eigen::Index w = ff.U.rows(), d = ff.U.cols();
  Eigen::Index lead_row = -1, pivot = -1;
  for (Eigen::Index i = 0; i < w && lead_row < 0; ++i)
    for (Eigen::Index k = 0; k < d; ++k)
      if (ff.U(i, k) != 0) {
        lead_row = i;
        pivot = k;
        break;
      }
  if (lead_row < 0) return std::nullopt;
  // Canonical representative of the direction up to powers of two, |r[pivot]| in [1, 2): layers
  // whose units were rescaled by powers of two (lem:relu-rescaling) share one reading index.
  Point lead = ff.U.row(lead_row).transpose();
  lead *= pow2(-floor_log2(abs(lead[pivot])));
  OneDirectionForm form{std::move(lead), {}, 0, 0, false, false};
  std::vector<bool> left(w), right(w);
  for (Eigen::Index i = 0; i < w; ++i) {
    Rational u = ff.U(i, pivot) / form.r[pivot];
    for (Eigen::Index k = 0; k < d; ++k)
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
  for (std::size_t i = 0; i < form.slope.size(); ++i) {
    const auto k = static_cast<Eigen::Index>(i);
    const Rational pre = form.slope[i] * t + ff.b[k];
    if (pre > 0) y += ff.W.col(k) * pre;
  }
  return y;
}

}  // namespace seqi
