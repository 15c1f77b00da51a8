// Lemma lem:sparse-ff: a feed-forward layer whose rows of U are all multiples of one
// direction r depends on x only through x and its reading t = r.x:
//   FF(x) = eta x + sum_{i : slope_i t + b_i > 0} W_i (slope_i t + b_i),
// so it costs O(w d) without any dot product per unit. When eta = 1 and both outer
// activation patterns contribute zero slope and zero offset, it is the identity on every
// token whose reading lies outside the open hull (lo, hi) of its breakpoints (at lo and hi
// by continuity), and only the tokens inside need arithmetic.
#pragma once
#include <optional>
#include <vector>

#include "seqi/model/feed_forward.hpp"

namespace seqi {

struct OneDirectionForm {
  Point r;                      // the common direction: first nonzero row of U times a power of two
  std::vector<Rational> slope;  // U row i = slope[i] * r
  Rational lo, hi;              // hull of the breakpoints -b_i/slope_i (when has_breakpoint)
  bool has_breakpoint = false;
  bool identity_outside = false;  // eta = 1 and the layer is the identity outside (lo, hi)
};

// The form when every row of U is a multiple of one nonzero direction (decided exactly).
std::optional<OneDirectionForm> one_direction_form(const FeedForward<Rational>& ff);

// The form when the layer is also the identity outside (lo, hi); nullopt otherwise.
std::optional<OneDirectionForm> identity_outside_breakpoints(const FeedForward<Rational>& ff);

// FF(x) for a one-direction layer, given t = r.x exactly. Equals ff.apply(x).
Point apply_one_direction(const FeedForward<Rational>& ff, const OneDirectionForm& form, const Point& x,
                          const Rational& t);

}  // namespace seqi
