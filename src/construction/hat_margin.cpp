#include "seqi/construction/hat_margin.hpp"

#include <algorithm>
#include <numeric>

#include "seqi/numbers/dyadic.hpp"

namespace seqi {

Rational hat_half_width_with_margin(const Rational& gap) { return pow2(floor_log2(gap / 2)); }

std::vector<std::size_t> decreasing_reading_order(const std::vector<Rational>& readings) {
  std::vector<std::size_t> order(readings.size());
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return readings[a] > readings[b]; });
  return order;
}

}  // namespace seqi
