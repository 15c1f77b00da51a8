#include "seqi/forward/reading_index.hpp"

namespace seqi {

void ReadingIndex::reset(const Point& r, std::size_t count) {
  valid_ = true;
  r_ = r;
  lo_.assign(count, Rational(0));
  hi_.assign(count, Rational(0));
  present_.assign(count, false);
  by_lo_.clear();
  max_width_ = 0;
}

void ReadingIndex::set(std::size_t i, const Rational& rlo, const Rational& rhi) {
  if (present_[i]) {
    if (lo_[i] == rlo && hi_[i] == rhi) return;
    auto range = by_lo_.equal_range(lo_[i]);
    for (auto it = range.first; it != range.second; ++it)
      if (it->second == i) {
        by_lo_.erase(it);
        break;
      }
  }
  lo_[i] = rlo;
  hi_[i] = rhi;
  present_[i] = true;
  if (rhi - rlo > max_width_) max_width_ = rhi - rlo;
  by_lo_.emplace(rlo, i);
}

std::vector<std::size_t> ReadingIndex::all() const {
  std::vector<std::size_t> out;
  out.reserve(by_lo_.size());
  for (const auto& [t, i] : by_lo_) out.push_back(i);
  return out;
}

std::pair<Rational, Rational> ReadingIndex::span() const {
  return {by_lo_.begin()->first, by_lo_.rbegin()->first + max_width_};
}

std::vector<std::size_t> ReadingIndex::meeting(const Rational& lo, const Rational& hi) const {
  std::vector<std::size_t> out;
  // rlo < hi and rhi > lo; rhi <= rlo + max_width, so rlo > lo - max_width.
  for (auto it = by_lo_.upper_bound(lo - max_width_); it != by_lo_.end() && it->first < hi; ++it)
    if (hi_[it->second] > lo) out.push_back(it->second);
  return out;
}

}  // namespace seqi
