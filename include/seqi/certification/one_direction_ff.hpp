// Lemma lem:sparse-ff: a feed-forward layer whose rows of U are all multiples of one
// direction r acts as the identity on every token whose reading r.x lies outside the
// open hull (lo, hi) of its breakpoints (at lo and hi by continuity), provided eta = 1 and the outer activation patterns
// contribute zero slope and zero offset. Such a layer need only touch tokens inside.
#pragma once
#include <optional>
#include <vector>

#include "seqi/model/feed_forward.hpp"

namespace seqi {

struct OneDirectionForm {
  Point r;                         // the common reading direction (first nonzero row of U)
  std::vector<Rational> slope;     // U row i = slope[i] * r
  Rational lo, hi;                 // hull of the breakpoints -b_i/slope_i over slope_i != 0
};

// Returns the form when the layer is one-directional, has at least one breakpoint and is
// the identity outside (lo, hi) (all decided exactly); nullopt otherwise.
std::optional<OneDirectionForm> identity_outside_breakpoints(const FeedForward<Rational>& ff);

}  // namespace seqi
