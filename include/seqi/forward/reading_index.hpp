// Tokens indexed by their reading r.x along one direction r, so that a layer which only acts
// on readings inside (lo, hi) (lem:sparse-ff) finds its tokens in O(log T + touched).
// A token's reading may be an interval [rlo, rhi] (an enclosure, lem:direction-carrying).
#pragma once
#include <cstddef>
#include <map>
#include <utility>
#include <vector>

#include "seqi/numbers/rational.hpp"

namespace seqi {

class ReadingIndex {
 public:
  ReadingIndex() = default;
  // Moves keep at_ valid (a map's nodes move with it); a copy would point into the original.
  ReadingIndex(const ReadingIndex&) = delete;
  ReadingIndex& operator=(const ReadingIndex&) = delete;
  ReadingIndex(ReadingIndex&&) = default;
  ReadingIndex& operator=(ReadingIndex&&) = default;
  ~ReadingIndex() = default;

  bool valid_for(const Point& r) const { return valid_ && equal_points(r_, r); }
  void invalidate() { valid_ = false; }
  const Point& direction() const { return r_; }

  // Starts a new index for direction r over `count` tokens; then set() each token.
  void reset(const Point& r, std::size_t count);
  // Sets (or moves) token i to the reading interval [rlo, rhi], rlo <= rhi.
  void set(std::size_t i, Rational rlo, Rational rhi);
  // Every token, in reading order.
  std::vector<std::size_t> all() const;
  // Lower end of token i's reading (token i set).
  const Rational& reading(std::size_t i) const { return at_[i]->first; }
  // Smallest lower end and a bound >= every upper end of the readings (index not empty).
  std::pair<Rational, Rational> span() const;
  // Tokens whose reading interval meets the open interval (lo, hi), in reading order.
  std::vector<std::size_t> meeting(const Rational& lo, const Rational& hi) const;

 private:
  using ByLo = std::multimap<Rational, std::size_t>;
  const Rational& upper(std::size_t i) const { return hi_.empty() ? at_[i]->first : hi_[i]; }

  // Invariant: each reading is stored once (compact memory): a set token i
  // (present_[i]) has its lower end as the key of at_[i]; hi_ is empty while every set token's
  // interval is a point (the exact pass), else hi_[i] is token i's upper end.
  bool valid_ = false;
  Point r_;
  ByLo by_lo_;
  std::vector<ByLo::iterator> at_;
  std::vector<bool> present_;
  std::vector<Rational> hi_;
  Rational max_width_ = 0;  // >= every rhi - rlo ever set (a conservative search slack)
};

}  // namespace seqi
