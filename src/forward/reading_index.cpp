#include "seqi/forward/reading_index.hpp"

#include <utility>

namespace seqi {

void ReadingIndex::reset(const Point& r, std::size_t count) {
  valid_ = true;
  r_ = r;
  by_lo_.clear();
  at_.assign(count, ByLo::iterator());
  present_.assign(count, false);
  std::vector<Rational>().swap(hi_);
  max_width_ = 0;
}

void ReadingIndex::set(std::size_t i, Rational rlo, Rational rhi) {
  if (present_[i]) {
    if (at_[i]->first == rlo && upper(i) == rhi) return;
    by_lo_.erase(at_[i]);
    present_[i] = false;
  }
  if (hi_.empty() && rhi != rlo) {  // the first proper interval: every upper end from now on
    hi_.resize(at_.size());
    for (std::size_t k = 0; k < at_.size(); ++k)
      if (present_[k]) hi_[k] = at_[k]->first;
  }
  if (rhi - rlo > max_width_) max_width_ = rhi - rlo;
  if (!hi_.empty()) hi_[i] = std::move(rhi);
  at_[i] = by_lo_.emplace(std::move(rlo), i);
  present_[i] = true;
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
    if (upper(it->second) > lo) out.push_back(it->second);
  return out;
}

}  // namespace seqi
