// lem:direction-carrying: a token known only up to an interval coefficient on an exact
// direction, x = p + c w with p, w exact and c in [lo, hi] (exact rational endpoints).
// A feed-forward layer whose every ReLU has one sign over the whole enclosure maps it to
// p' + c w' exactly (w' = 0 when the layer's Jacobian kills w: an exact point).
#pragma once
#include <memory>
#include <optional>
#include <string>

#include "seqi/model/feed_forward.hpp"

namespace seqi {

struct CarriedToken {
  // w null or 0: the exact point p (exact() and apply_carried store null). Directions are
  // immutable and shared: the collapse gives every token the one v, and a layer that leaves
  // a direction unchanged keeps the same object (no copy of d rationals per token).
  Point p;
  std::shared_ptr<const Point> w;
  Rational lo, hi;  // c in [lo, hi]

  static CarriedToken exact(Point x) { return {std::move(x), nullptr, 0, 0}; }
  static CarriedToken enclosure(Point p, std::shared_ptr<const Point> w, Rational lo, Rational hi) {
    return {std::move(p), std::move(w), std::move(lo), std::move(hi)};
  }
  static CarriedToken enclosure(Point p, const Point& w, Rational lo, Rational hi) {
    return enclosure(std::move(p), std::make_shared<const Point>(w), std::move(lo), std::move(hi));
  }
  bool is_exact() const { return !w || w->isZero(); }
  // The direction; precondition: !is_exact().
  const Point& direction() const { return *w; }
  // Reading r.x as an interval [rlo, rhi].
  std::pair<Rational, Rational> reading(const Point& r) const;
};

// The image under ff, or nullopt when the pre-activation of some unit straddles 0 over the
// enclosure (then *straddling_unit names it, 1-based). The image shares x's direction object
// when the layer leaves the direction unchanged.
std::optional<CarriedToken> apply_carried(const FeedForward<Rational>& ff, const CarriedToken& x,
                                          std::size_t* straddling_unit);

}  // namespace seqi
