#include "seqi/certification/enclosure_order.hpp"

#include <algorithm>
#include <cmath>

#include "seqi/numbers/upward.hpp"

namespace seqi {
namespace {

// [lo, hi] may meet [a, b]; true for NaN ends.
bool may_meet(double lo, double hi, double a, double b) { return !(hi < a) && !(lo > b); }

}  // namespace

void EnclosureOrder::rebuild(const std::vector<double>& lo, const std::vector<double>& hi) {
  sorted_.clear();
  aside_.assign(lo.size(), 0);
  aside_list_.clear();
  width_ = 0;
  for (std::size_t i = 0; i < lo.size(); ++i) {
    if (std::isfinite(lo[i]) && std::isfinite(hi[i])) {
      sorted_.push_back({lo[i], i});
      width_ = std::max(width_, hi[i] - lo[i]);  // rounded up
    } else {
      aside_[i] = 1;
      aside_list_.push_back(i);
    }
  }
  std::sort(sorted_.begin(), sorted_.end(),
            [](const Entry& x, const Entry& y) { return x.lo < y.lo || (x.lo == y.lo && x.i < y.i); });
}

void EnclosureOrder::moved(std::size_t i, const std::vector<double>& lo, const std::vector<double>& hi) {
  if (aside_[i]) return;
  aside_[i] = 1;
  aside_list_.push_back(i);
  if (aside_list_.size() > std::max<std::size_t>(1024, lo.size() / 8)) rebuild(lo, hi);
}

std::vector<std::size_t> EnclosureOrder::meeting(double a, double b, const std::vector<double>& lo,
                                                 const std::vector<double>& hi) const {
  std::vector<std::size_t> out;
  // An entry meeting [a, b] has hi >= a, so lo >= hi - width_ >= a - width_.
  const double from = lower_difference(a, width_);
  auto it = std::lower_bound(sorted_.begin(), sorted_.end(), from, [](const Entry& e, double x) { return e.lo < x; });
  if (std::isnan(from)) it = sorted_.begin();
  for (; it != sorted_.end() && !(it->lo > b); ++it)
    if (!aside_[it->i] && may_meet(lo[it->i], hi[it->i], a, b)) out.push_back(it->i);
  for (std::size_t i : aside_list_)
    if (may_meet(lo[i], hi[i], a, b)) out.push_back(i);
  return out;
}

}  // namespace seqi
