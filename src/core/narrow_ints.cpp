#include "seqi/core/narrow_ints.hpp"

#include <algorithm>
#include <limits>

namespace seqi {
namespace {

template <class T>
bool holds(std::int64_t lo, std::int64_t hi) {
  return lo >= std::numeric_limits<T>::min() && hi <= std::numeric_limits<T>::max();
}

template <class To, class From>
std::vector<To> widened(const std::vector<From>& v) {
  return std::vector<To>(v.begin(), v.end());  // every value fits: To is wider
}

}  // namespace

void NarrowInts::widen_for(std::int64_t lo, std::int64_t hi) {
  if (auto* v = std::get_if<std::vector<std::int16_t>>(&values_); v && !holds<std::int16_t>(lo, hi)) {
    if (holds<std::int32_t>(lo, hi))
      values_ = widened<std::int32_t>(*v);
    else
      values_ = widened<std::int64_t>(*v);
    return;
  }
  if (auto* v = std::get_if<std::vector<std::int32_t>>(&values_); v && !holds<std::int32_t>(lo, hi))
    values_ = widened<std::int64_t>(*v);
}

void NarrowInts::append(const std::vector<std::int64_t>& row) {
  if (row.empty()) return;
  const auto [lo, hi] = std::minmax_element(row.begin(), row.end());
  widen_for(*lo, *hi);
  const bool first = size() == 0;
  lo_ = first ? *lo : std::min(lo_, *lo);
  hi_ = first ? *hi : std::max(hi_, *hi);
  std::visit(
      [&](auto& v) {
        using T = typename std::decay_t<decltype(v)>::value_type;
        for (const std::int64_t x : row) v.push_back(static_cast<T>(x));
      },
      values_);
}

void NarrowInts::scale(std::int64_t s) {
  const auto [lo, hi] = range();
  widen_for(lo * s, hi * s);  // s > 0: the products keep their order
  std::visit(
      [&](auto& v) {
        using T = typename std::decay_t<decltype(v)>::value_type;
        for (auto& x : v) x = static_cast<T>(static_cast<std::int64_t>(x) * s);
      },
      values_);
  lo_ *= s;
  hi_ *= s;
}

}  // namespace seqi
