// A sequence of int64 values stored in the narrowest of int16, int32, int64 that holds every
// one of them (compact memory: Fashion-MNIST's numerators over 255 take 2 bytes, not 8).
// Invariants: (*this)[k] is exactly the k-th value appended (after any scale()); lo_ and hi_
// are the smallest and largest value (0 when empty), so range() costs O(1) and appending n
// values one row at a time costs O(n), not O(n^2).
#pragma once
#include <cstddef>
#include <cstdint>
#include <utility>
#include <variant>
#include <vector>

namespace seqi {

class NarrowInts {
 public:
  std::size_t size() const {
    return std::visit([](const auto& v) { return v.size(); }, values_);
  }
  std::int64_t operator[](std::size_t k) const {
    return std::visit([k](const auto& v) { return static_cast<std::int64_t>(v[k]); }, values_);
  }
  // Bytes per stored value: 2, 4 or 8.
  std::size_t width() const {
    return std::visit([](const auto& v) { return sizeof(v[0]); }, values_);
  }
  // Appends the values, widening the store first when one does not fit it.
  void append(const std::vector<std::int64_t>& row);
  // The smallest and the largest stored value ({0, 0} when empty).
  std::pair<std::int64_t, std::int64_t> range() const { return {lo_, hi_}; }
  // Multiplies every value by s; preconditions: s > 0 and every product fits in int64.
  void scale(std::int64_t s);
  void clear() {
    values_ = std::vector<std::int16_t>();
    lo_ = hi_ = 0;
  }
  void shrink_to_fit() {
    std::visit([](auto& v) { v.shrink_to_fit(); }, values_);
  }
  // f(p) with p a pointer to the stored values (const std::int16_t*, const std::int32_t* or
  // const std::int64_t*), for loops that should not dispatch per value.
  template <class F>
  decltype(auto) with_data(F&& f) const {
    return std::visit([&](const auto& v) -> decltype(auto) { return f(v.data()); }, values_);
  }

 private:
  // Widens the store (never narrows) so that every value in [lo, hi] fits.
  void widen_for(std::int64_t lo, std::int64_t hi);
  std::variant<std::vector<std::int16_t>, std::vector<std::int32_t>, std::vector<std::int64_t>> values_;
  std::int64_t lo_ = 0, hi_ = 0;
};

}  // namespace seqi
