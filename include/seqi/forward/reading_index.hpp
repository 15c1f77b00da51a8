// Tokens indexed by their reading r.x along one direction r, so that a layer which only acts
// on readings inside (lo, hi) (lem:sparse-ff) finds its tokens in O(log T + touched).
// A token's reading may be an interval [rlo, rhi] (an enclosure, lem:direction-carrying).
#pragma once
#include <cstddef>
#include <map>
#include <vector>

#include "seqi/numbers/rational.hpp"

namespace seqi {

class ReadingIndex {
 public:
  bool valid_for(const Point& r) const { return valid_ && equal_points(r_, r); }
  void invalidate() { valid_ = false; }
  const Point& direction() const { return r_; }

  // Starts a new index for direction r over `count` tokens; then set() each token.
  void reset(const Point& r, std::size_t count);
  // Sets (or moves) token i to the reading interval [rlo, rhi], rlo <= rhi.
  void set(std::size_t i, const Rational& rlo, const Rational& rhi);
  // Every token, in reading order.
  std::vector<std::size_t> all() const;
  // Lower end of token i's reading.
  const Rational& reading(std::size_t i) const { return lo_[i]; }
  // Smallest lower end and a bound >= every upper end of the readings (index not empty).
  std::pair<Rational, Rational> span() const;
  // Tokens whose reading interval meets the open interval (lo, hi), in reading order.
  std::vector<std::size_t> meeting(const Rational& lo, const Rational& hi) const;

 private:
  bool valid_ = false;
  Point r_;
  std::vector<Rational> lo_, hi_;
  std::vector<bool> present_;
  std::multimap<Rational, std::size_t> by_lo_;
  Rational max_width_ = 0;  // >= every rhi - rlo ever set (a conservative search slack)
};

}  // namespace seqi
