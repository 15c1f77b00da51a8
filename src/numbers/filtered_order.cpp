#include "seqi/numbers/filtered_order.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>

#include "seqi/numbers/upward.hpp"

namespace seqi {
namespace {

// -1, 1 when the enclosures (mid_rad: |q - mid| <= rad) are apart by more than twice their
// radii, which covers the rounding of this test itself; 0 when the filter cannot decide (or a
// value is beyond double range).
int filtered_sign(const MidRad& a, const MidRad& b) {
  if (!std::isfinite(a.mid) || !std::isfinite(b.mid)) return 0;
  const double gap = b.mid - a.mid, slack = 2 * (a.rad + b.rad);
  return gap > slack ? -1 : -gap > slack ? 1 : 0;
}

}  // namespace

std::vector<MidRad> enclosures(const std::vector<Rational>& values) {
  std::vector<MidRad> out(values.size());
  UpwardRounding up;
  for (std::size_t i = 0; i < values.size(); ++i) out[i] = mid_rad(values[i]);
  return out;
}

int filtered_compare(const Rational& a, const MidRad& ea, const Rational& b, const MidRad& eb) {
  if (const int s = filtered_sign(ea, eb)) return s;
  const int c = a.compare(b);
  return (c > 0) - (c < 0);
}

std::vector<std::size_t> increasing_order(const std::vector<Rational>& t) {
  const std::vector<MidRad> ax = enclosures(t);
  std::vector<std::size_t> order(t.size());
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    if (const int s = filtered_sign(ax[a], ax[b])) return s < 0;
    const int c = t[a].compare(t[b]);
    return c != 0 ? c < 0 : a < b;
  });
  return order;
}

}  // namespace seqi
