// Feed-forward layers of the construction: the hat (lem:hat) and the flat hat (lem:flat-hat).
#pragma once
#include <map>
#include <memory>

#include "seqi/model/feed_forward.hpp"

namespace seqi {

// x -> x + D * h(r.x), h(t) = [relu(t-t_q+delta) - 2 relu(t-t_q) + relu(t-t_q-delta)] / delta.
// Moves every point with reading t_q by D; identity when |r.x - t_q| >= delta. Width 3.
FeedForward<Rational> hat_layer(const Point& r, const Rational& t_q, const Rational& delta,
                                const Point& D);

// The same move with a plateau (lem:plateau-hat): x -> x + D * h_p(r.x), h_p = 1 on
// [t_q - p, t_q + p] and 0 outside (t_q - delta, t_q + delta), linear between, p = delta / 16.
// Same hull as hat_layer; at the leader the active units' slopes cancel, so a float run does
// not amplify the leader's reading error (its kink would, by |D| / delta). Width 4.
FeedForward<Rational> plateau_hat_layer(const Point& r, const Rational& t_q, const Rational& delta, const Point& D);
// p / delta for plateau_hat_layer.
inline Rational plateau_fraction() { return Rational(1, 16); }

// One hat's move: the tokens reading t_q along r move by D; identity outside (t_q - delta, t_q + delta).
struct HatMove {
  Point r;
  Rational t_q, delta;
  Point D;
};
// hat_layer, or plateau_hat_layer when `plateau`.
inline FeedForward<Rational> move_layer(const HatMove& m, bool plateau) {
  return plateau ? plateau_hat_layer(m.r, m.t_q, m.delta, m.D) : hat_layer(m.r, m.t_q, m.delta, m.D);
}

// How many hats may carry a plateau (2d + 1 parameters more than a hat each) while the leader
// construction keeps within lem:counts' (20d + 22) sum(m) parameters with at most `runs`
// interpolation runs (runs_of_grouped_places): at most K + sum(m) - 1, the K lift hats and the
// placement hats after the shrink layer. They are given in block order: lifts first.
std::size_t plateau_hats_within_bound(std::size_t d, std::size_t sum_m, std::size_t lifts, bool shift_used,
                                      std::size_t runs);

// The first placement layer: x -> eps*x + C*e1 + D*h(r.x) (hat plus a constant unit). Width 4.
FeedForward<Rational> shrink_hat_layer(const Point& r, const Rational& t_q, const Rational& delta,
                                       const Point& D, const Rational& eps, const Point& C_e1);

// x -> x + c: one constant unit relu(0.x + 1) with output column c, balanced. Width 1.
FeedForward<Rational> constant_layer(const Point& c);

// x -> x + G(r.x) with breakpoints z -/+ 2df, z -/+ df (r.v = 1): every x = t v with
// |t - z| <= df goes to y; identity when r.x is outside (z - 2df, z + 2df). Width 4.
FeedForward<Rational> flat_hat_layer(const Point& r, const Point& v, const Rational& z,
                                     const Rational& df, const Point& y);

// The flat hat of a run (lem:run-interpolation): breakpoints z_lo -/+ 2df, z_lo - df, z_hi + df,
// z_hi + 2df (z_lo <= z_hi); every x = t v with z_lo - df <= t <= z_hi + df goes to y; identity
// when r.x is outside (z_lo - 2df, z_hi + 2df). Width 4. flat_hat_layer is z_lo = z_hi = z.
FeedForward<Rational> flat_run_layer(const Point& r, const Point& v, const Rational& z_lo, const Rational& z_hi,
                                     const Rational& df, const Point& y);

// What a flat hat's units read and write, shared by the flat hats that have it in common: the
// reading r as a 1 x d row (with |r|^2) and the d x 2 matrix [y v]. U = slopes r^T, W = [y v] Q.
struct FlatRunFactors {
  std::shared_ptr<Mat<Rational>> reading;
  Rational reading_norm_sq;
  std::shared_ptr<Mat<Rational>> target_and_v;
};
// flat_run_layer with its factors stored once for all the layers that share them.
FeedForward<Rational> flat_run_layer(const FlatRunFactors& f, const Rational& z_lo, const Rational& z_hi,
                                     const Rational& df);

// The factors of the flat hats of one reading r (v = r / |r|^2): r and -r (a mirrored hat reads
// -r, writes along -v) stored once each, [y +-v] once per target y and side.
class SharedFlatFactors {
 public:
  SharedFlatFactors(const Point& r, const Point& v);
  FlatRunFactors of(const Point& y, bool mirrored);

 private:
  struct Side {
    std::shared_ptr<Mat<Rational>> reading;
    Point v;
    std::map<Point, std::shared_ptr<Mat<Rational>>, bool (*)(const Point&, const Point&)> targets{lex_less};
  };
  Rational reading_norm_sq_;
  Side side_[2];
};

}  // namespace seqi
