// Tokens ordered by the lower ends of their reading enclosures [lo_i, hi_i] along the float-run
// bound's current direction (an epoch of lem:float-run-sparse). A layer's band candidates come
// from one binary search and a contiguous scan instead of a walk of the exact reading index.
// A token whose enclosure changes is set aside, into a second order by its new lower end (a
// search and a scan of the tokens that may meet, never of them all; a token with a non-finite
// end is listed always) until the next rebuild, which happens once the set-aside tokens exceed
// an eighth of all tokens (and 1024).
// Beside the order, the largest error bounds (e_i, rho_i) over any range of it: a zone of
// readings is bounded without listing its tokens (the shrinking candidate zone of float_run).
#pragma once
#include <cstddef>
#include <set>
#include <vector>

namespace seqi {

class EnclosureOrder {
 public:
  // Orders every token i by lo[i] and records its errors e[i], rho[i]. Requires UpwardRounding.
  void rebuild(const std::vector<double>& lo, const std::vector<double>& hi, const std::vector<double>& e,
               const std::vector<double>& rho);
  // Token i's enclosure is now [lo[i], hi[i]]. Requires UpwardRounding (it may rebuild).
  void moved(std::size_t i, const std::vector<double>& lo, const std::vector<double>& hi, const std::vector<double>& e,
             const std::vector<double>& rho);
  // Token i's errors are now e_i, rho_i (enclosure unchanged). Every change of a token's errors
  // must be told here or by moved() before the next errors_meeting().
  void errors_changed(std::size_t i, double e_i, double rho_i);
  // Every token whose enclosure [lo[i], hi[i]] (the vectors of rebuild and moved) may meet [a, b],
  // each once, in an order fixed by the calls so far (not sorted: callers that need an order sort
  // what they keep); a token with a non-finite end is always listed. Requires UpwardRounding.
  std::vector<std::size_t> meeting(double a, double b, const std::vector<double>& lo,
                                   const std::vector<double>& hi) const;

  // Bounds over a superset of the tokens meeting [a, b]: e >= their e_i, rho >= their rho_i,
  // lo <= their lo_i, hi >= their hi_i (NaN or infinite when some end or error is; e = rho = 0,
  // lo = +inf, hi = -inf when there is none). Requires UpwardRounding.
  struct Zone {
    double e, rho, lo, hi;
  };
  Zone errors_meeting(double a, double b, const std::vector<double>& lo, const std::vector<double>& hi,
                      const std::vector<double>& e, const std::vector<double>& rho) const;

 private:
  struct Entry {
    double lo;
    std::size_t i;
    bool operator<(const Entry& o) const { return lo < o.lo || (lo == o.lo && i < o.i); }
  };
  enum Place : char { kSorted = 0, kAside = 1, kUnbounded = 2 };
  // The entries [first, last) that may meet [a, b]: lo >= a - width_ and lo <= b.
  std::pair<std::size_t, std::size_t> entries_meeting(double a, double b) const;
  void set_errors(std::size_t entry, double e_i, double rho_i);
  // Token i, now [lo_i, hi_i], into aside_set_ (finite ends) or unbounded_, out of where it was.
  void set_aside(std::size_t i, double lo_i, double hi_i);
  // f(i) for every set-aside token i whose enclosure may meet [a, b], each once.
  template <class F>
  void for_each_aside_meeting(double a, double b, const std::vector<double>& lo, const std::vector<double>& hi,
                              F&& f) const;

  std::vector<Entry> sorted_;       // finite, not set aside; ascending by (lo, i)
  std::vector<char> aside_;         // per token: its Place; a set-aside token's entry in sorted_ is stale
  std::set<Entry> aside_set_;       // finite set-aside tokens, by (lo when set aside, i)
  std::vector<double> aside_key_;   // per token in aside_set_: the lo it is filed under
  std::vector<std::size_t> unbounded_;  // set-aside tokens with a non-finite end
  double aside_width_ = 0;          // >= hi - lo of every token filed in aside_set_ since the rebuild
  double width_ = 0;                // >= hi - lo of every entry of sorted_
  std::vector<std::size_t> entry_;  // per token: its index in sorted_ (when not aside)
  // Max trees over the entries (leaf sorted_.size() + k for entry k): e and rho (NaN kept: a NaN
  // error makes every maximum over it NaN).
  std::vector<double> max_e_, max_rho_;
};

}  // namespace seqi
