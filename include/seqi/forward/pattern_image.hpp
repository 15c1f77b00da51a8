// A one-direction layer that touches every token (the shrink layer of lem:shrink) evaluated per
// activation pattern (lem:sparse-ff): on a token of reading t with active units P,
//   FF(x) = eta x + w_P t + c_P,   w_P = sum_{k in P} slope_k W_k,   c_P = sum_{k in P} b_k W_k,
// exactly the value of apply_one_direction, with one sparse vector update per token instead of
// one dense one per active unit (on the right of a hat the hat's units cancel: w_P = c_P = 0).
#pragma once
#include <cstddef>
#include <vector>

#include "seqi/forward/one_direction_ff.hpp"

namespace seqi {

class PatternImage {
 public:
  // Widest layer for which the 2^w patterns are built.
  static constexpr std::size_t kMaxWidth = 6;
  // Precondition: form == one_direction_form(ff) and form.slope.size() <= kMaxWidth.
  PatternImage(const FeedForward<Rational>& ff, const OneDirectionForm& form);
  // FF(x) given t = r.x exactly; equals apply_one_direction(ff, form, x, t).
  Point operator()(const Point& x, const Rational& t) const;

 private:
  struct Entry {
    Eigen::Index c;
    Rational value;
  };
  struct Pattern {
    std::vector<Entry> w, c;  // the nonzero coordinates of w_P and c_P
  };
  std::vector<Rational> slope_, b_;
  Rational eta_;
  std::vector<Pattern> patterns_;  // indexed by the bit mask of the active units
};

}  // namespace seqi
