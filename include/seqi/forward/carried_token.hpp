// lem:direction-carrying: a token known only up to an interval coefficient on an exact
// direction, x = p + c w with p, w exact and c in [lo, hi] (exact rational endpoints).
// A feed-forward layer whose every ReLU has one sign over the whole enclosure maps it to
// p' + c w' exactly (w' = 0 when the layer's Jacobian kills w: an exact point).
#pragma once
#include <optional>
#include <string>

#include "seqi/model/feed_forward.hpp"

namespace seqi {

struct CarriedToken {
  // w empty or 0: the exact point p. exact() and apply_carried leave w empty, so that a large
  // state of exact tokens holds no d zero rationals per token.
  Point p, w;
  Rational lo, hi;  // c in [lo, hi]

  static CarriedToken exact(const Point& x) { return {x, Point(), 0, 0}; }
  bool is_exact() const { return w.size() == 0 || w.isZero(); }
  // Reading r.x as an interval [rlo, rhi].
  std::pair<Rational, Rational> reading(const Point& r) const;
};

// The image under ff, or nullopt when the pre-activation of some unit straddles 0 over the
// enclosure (then *straddling_unit names it, 1-based).
std::optional<CarriedToken> apply_carried(const FeedForward<Rational>& ff, const CarriedToken& x,
                                          std::size_t* straddling_unit);

}  // namespace seqi
