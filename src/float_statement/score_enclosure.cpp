#include "seqi/float_statement/score_enclosure.hpp"
#include "seqi/numbers/upward.hpp"

#include <cmath>


namespace seqi {

// a_c in [am_c - ar_c, am_c + ar_c], x_c likewise (mid_rad): a_c x_c = am_c xm_c + am_c (x_c - xm_c)
// + (a_c - am_c) x_c, so a . x lies within R = sum_c |am_c| xr_c + ar_c (|xm_c| + xr_c) of
// sum_c am_c xm_c. Under upward rounding that sum computed as is bounds it from above, computed
// with -am_c (negated) from below; R of nonnegative terms is an upper bound.
void append_mid_rad(const Point& x, std::vector<MidRad>& out) {
  for (Eigen::Index c = 0; c < x.size(); ++c) out.push_back(mid_rad(x[c]));
}

ScoreEnclosure enclose_score(const MidRad* a, const MidRad* x, std::size_t d) {
  expect_upward_rounding("enclose_score");
  double up = 0, down = 0, r = 0;  // down: minus a lower bound of the centre sum
  for (std::size_t c = 0; c < d; ++c) {
    const MidRad am = a[c], xm = x[c];
    up = up + am.mid * xm.mid;
    down = down + (-am.mid) * xm.mid;
    r = r + std::fabs(am.mid) * xm.rad + am.rad * (std::fabs(xm.mid) + xm.rad);
  }
  return {lower_difference(-down, r), up + r};
}

std::optional<std::size_t> argmax_shown_by_enclosures(const std::vector<ScoreEnclosure>& scores,
                                                      const std::function<double(std::size_t, std::size_t)>& need) {
  expect_upward_rounding("argmax_shown_by_enclosures");
  if (scores.empty()) return std::nullopt;
  std::size_t top = 0;
  for (std::size_t l = 1; l < scores.size(); ++l)
    if (scores[l].lo > scores[top].lo) top = l;
  if (!std::isfinite(scores[top].lo)) return std::nullopt;
  for (std::size_t l = 0; l < scores.size(); ++l) {
    if (l == top) continue;
    if (!std::isfinite(scores[l].hi)) return std::nullopt;
    // s_top - s_l >= lo_top - hi_l >= lower_difference(lo_top, hi_l) > need(top, l)
    if (!(lower_difference(scores[top].lo, scores[l].hi) > need(top, l))) return std::nullopt;
  }
  return top;
}

}  // namespace seqi
