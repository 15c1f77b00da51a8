#include "seqi/numbers/filtered_order.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>

namespace seqi {
namespace {

// x with |q - x| <= rad: mpq_get_d truncates, within one ulp of q (2^-52 |x|, or 2^-1074 below
// the normal range); rad doubles that. Not finite: no filter.
struct Approx {
  double x, rad;
  bool finite() const { return std::isfinite(x); }
};

Approx approx(const Rational& q) {
  const double x = mpq_get_d(q.backend().data());
  return {x, std::fabs(x) * 0x1p-51 + 0x1p-1073};
}

// -1, 1 when the enclosures are apart by more than twice their radii (which covers the rounding
// of this test itself), 0 when the filter cannot decide.
int filtered_sign(const Approx& a, const Approx& b) {
  if (!a.finite() || !b.finite()) return 0;
  const double gap = b.x - a.x, slack = 2 * (a.rad + b.rad);
  return gap > slack ? -1 : -gap > slack ? 1 : 0;
}

}  // namespace

std::vector<std::size_t> increasing_order(const std::vector<Rational>& t) {
  std::vector<Approx> ax(t.size());
  for (std::size_t i = 0; i < t.size(); ++i) ax[i] = approx(t[i]);
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
