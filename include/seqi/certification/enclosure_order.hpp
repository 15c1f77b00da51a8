// Tokens ordered by the lower ends of their reading enclosures [lo_i, hi_i] along the float-run
// bound's current direction (an epoch of lem:float-run-sparse). A layer's band candidates come
// from one binary search and a contiguous scan instead of a walk of the exact reading index.
// A token whose enclosure changes is set aside (scanned linearly) until the next rebuild, which
// happens once the set-aside tokens exceed an eighth of all tokens (and 1024).
#pragma once
#include <cstddef>
#include <vector>

namespace seqi {

class EnclosureOrder {
 public:
  // Orders every token i by lo[i]. Requires UpwardRounding.
  void rebuild(const std::vector<double>& lo, const std::vector<double>& hi);
  // Token i's enclosure is now [lo[i], hi[i]]. Requires UpwardRounding (it may rebuild).
  void moved(std::size_t i, const std::vector<double>& lo, const std::vector<double>& hi);
  // Every token whose enclosure [lo[i], hi[i]] (the vectors of rebuild and moved) may meet [a, b],
  // each once, in an order fixed by the calls so far (not sorted: callers that need an order sort
  // what they keep); a token with a non-finite end is always listed. Requires UpwardRounding.
  std::vector<std::size_t> meeting(double a, double b, const std::vector<double>& lo,
                                   const std::vector<double>& hi) const;

 private:
  struct Entry {
    double lo;
    std::size_t i;
  };
  std::vector<Entry> sorted_;       // finite, not set aside; ascending by (lo, i)
  std::vector<char> aside_;         // per token: listed in aside_list_, its entry (if any) stale
  std::vector<std::size_t> aside_list_;
  double width_ = 0;                // >= hi - lo of every entry of sorted_
};

}  // namespace seqi
