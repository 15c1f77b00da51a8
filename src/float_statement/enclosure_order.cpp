#include "seqi/float_statement/enclosure_order.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "seqi/numbers/upward.hpp"

namespace seqi {
namespace {

// [lo, hi] may meet [a, b]; true for NaN ends.
bool may_meet(double lo, double hi, double a, double b) { return !(hi < a) && !(lo > b); }

// The larger, NaN if either is (std::max would drop a NaN second argument).
double max_keeping_nan(double x, double y) { return (std::isnan(x) || x >= y) ? x : y; }
double min_keeping_nan(double x, double y) { return (std::isnan(x) || x <= y) ? x : y; }

}  // namespace

void EnclosureOrder::rebuild(const std::vector<double>& lo, const std::vector<double>& hi,
                             const std::vector<double>& e, const std::vector<double>& rho) {
  expect_upward_rounding("EnclosureOrder::rebuild");
  sorted_.clear();
  aside_.assign(lo.size(), kSorted);
  aside_set_.clear();
  aside_key_.assign(lo.size(), 0);
  unbounded_.clear();
  aside_width_ = 0;
  width_ = 0;
  for (std::size_t i = 0; i < lo.size(); ++i) {
    if (std::isfinite(lo[i]) && std::isfinite(hi[i])) {
      sorted_.push_back({lo[i], i});
      width_ = std::max(width_, hi[i] - lo[i]);  // rounded up
    } else {
      aside_[i] = kUnbounded;
      unbounded_.push_back(i);
    }
  }
  std::sort(sorted_.begin(), sorted_.end());
  const std::size_t n = sorted_.size();
  entry_.assign(lo.size(), 0);
  max_e_.assign(2 * n, 0);
  max_rho_.assign(2 * n, 0);
  for (std::size_t k = 0; k < n; ++k) {
    entry_[sorted_[k].i] = k;
    max_e_[n + k] = e[sorted_[k].i];
    max_rho_[n + k] = rho[sorted_[k].i];
  }
  for (std::size_t k = n; k-- > 1;) {
    max_e_[k] = max_keeping_nan(max_e_[2 * k], max_e_[2 * k + 1]);
    max_rho_[k] = max_keeping_nan(max_rho_[2 * k], max_rho_[2 * k + 1]);
  }
}

void EnclosureOrder::moved(std::size_t i, const std::vector<double>& lo, const std::vector<double>& hi,
                           const std::vector<double>& e, const std::vector<double>& rho) {
  expect_upward_rounding("EnclosureOrder::moved");
  set_aside(i, lo[i], hi[i]);
  if (aside_set_.size() + unbounded_.size() > std::max<std::size_t>(1024, lo.size() / 8)) rebuild(lo, hi, e, rho);
}

void EnclosureOrder::set_aside(std::size_t i, double lo_i, double hi_i) {
  const bool finite = std::isfinite(lo_i) && std::isfinite(hi_i);
  if (aside_[i] == kUnbounded && !finite) return;  // listed always already
  if (aside_[i] == kAside) aside_set_.erase(Entry{aside_key_[i], i});
  if (aside_[i] == kUnbounded) unbounded_.erase(std::find(unbounded_.begin(), unbounded_.end(), i));
  if (finite) {
    aside_[i] = kAside;
    aside_key_[i] = lo_i;
    aside_set_.insert(Entry{lo_i, i});
    aside_width_ = std::max(aside_width_, hi_i - lo_i);  // rounded up
  } else {
    aside_[i] = kUnbounded;
    unbounded_.push_back(i);
  }
}

template <class F>
void EnclosureOrder::for_each_aside_meeting(double a, double b, const std::vector<double>& lo,
                                            const std::vector<double>& hi, F&& f) const {
  // A filed token meeting [a, b] has lo <= b and lo >= hi - aside_width_ >= a - aside_width_.
  const double from = lower_difference(a, aside_width_);
  auto it = std::isnan(from) ? aside_set_.begin() : aside_set_.lower_bound(Entry{from, 0});
  for (; it != aside_set_.end() && (std::isnan(b) || !(it->lo > b)); ++it)
    if (may_meet(lo[it->i], hi[it->i], a, b)) f(it->i);
  for (std::size_t i : unbounded_)
    if (may_meet(lo[i], hi[i], a, b)) f(i);
}

void EnclosureOrder::set_errors(std::size_t entry, double e_i, double rho_i) {
  std::size_t k = sorted_.size() + entry;
  max_e_[k] = e_i;
  max_rho_[k] = rho_i;
  for (k /= 2; k >= 1; k /= 2) {
    max_e_[k] = max_keeping_nan(max_e_[2 * k], max_e_[2 * k + 1]);
    max_rho_[k] = max_keeping_nan(max_rho_[2 * k], max_rho_[2 * k + 1]);
  }
}

void EnclosureOrder::errors_changed(std::size_t i, double e_i, double rho_i) {
  if (aside_[i] == kSorted) set_errors(entry_[i], e_i, rho_i);  // set-aside tokens are read directly
}

std::pair<std::size_t, std::size_t> EnclosureOrder::entries_meeting(double a, double b) const {
  // An entry meeting [a, b] has hi >= a, so lo >= hi - width_ >= a - width_.
  const double from = lower_difference(a, width_);
  auto first = std::lower_bound(sorted_.begin(), sorted_.end(), from, [](const Entry& e, double x) { return e.lo < x; });
  if (std::isnan(from)) first = sorted_.begin();
  auto last = std::upper_bound(first, sorted_.end(), b, [](double x, const Entry& e) { return x < e.lo; });
  if (std::isnan(b)) last = sorted_.end();
  return {static_cast<std::size_t>(first - sorted_.begin()), static_cast<std::size_t>(last - sorted_.begin())};
}

std::vector<std::size_t> EnclosureOrder::meeting(double a, double b, const std::vector<double>& lo,
                                                 const std::vector<double>& hi) const {
  expect_upward_rounding("EnclosureOrder::meeting");
  std::vector<std::size_t> out;
  const auto [first, last] = entries_meeting(a, b);
  for (std::size_t k = first; k < last; ++k) {
    const std::size_t i = sorted_[k].i;
    if (aside_[i] == kSorted && may_meet(lo[i], hi[i], a, b)) out.push_back(i);
  }
  for_each_aside_meeting(a, b, lo, hi, [&](std::size_t i) { out.push_back(i); });
  return out;
}

EnclosureOrder::Zone EnclosureOrder::errors_meeting(double a, double b, const std::vector<double>& lo,
                                                    const std::vector<double>& hi, const std::vector<double>& e,
                                                    const std::vector<double>& rho) const {
  Zone z{0, 0, std::numeric_limits<double>::infinity(), -std::numeric_limits<double>::infinity()};
  const auto [first, last] = entries_meeting(a, b);
  if (first < last) {
    // Entries k in [first, last): lo_k >= a - width_ (or the start), lo_k <= b, hi_k <= lo_k + width_.
    // Stale entries (set aside) only make the maxima larger.
    const std::size_t n = sorted_.size();
    for (std::size_t l = first + n, r = last + n; l < r; l /= 2, r /= 2) {
      if (l & 1) z.e = max_keeping_nan(z.e, max_e_[l]), z.rho = max_keeping_nan(z.rho, max_rho_[l]), ++l;
      if (r & 1) --r, z.e = max_keeping_nan(z.e, max_e_[r]), z.rho = max_keeping_nan(z.rho, max_rho_[r]);
    }
    z.lo = sorted_[first].lo;
    z.hi = sorted_[last - 1].lo + width_;  // rounded up
  }
  for_each_aside_meeting(a, b, lo, hi, [&](std::size_t i) {
    z.e = max_keeping_nan(z.e, e[i]);
    z.rho = max_keeping_nan(z.rho, rho[i]);
    z.lo = min_keeping_nan(z.lo, lo[i]);
    z.hi = max_keeping_nan(z.hi, hi[i]);
  });
  return z;
}

}  // namespace seqi
