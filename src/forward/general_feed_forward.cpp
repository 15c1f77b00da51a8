#include "seqi/forward/general_feed_forward.hpp"

#include <vector>

namespace seqi {
namespace {

enum class Sign { active, inactive, undecided };

// Unit i's pre-activation: exact constant a and exact coefficients g of the token's generators.
struct PreActivation {
  Rational a;
  std::vector<Rational> g;
};

Interval range_of(const PreActivation& z, const IntervalBox& c, unsigned prec) {
  std::vector<Interval> terms{Interval(z.a, prec)};
  for (std::size_t k = 0; k < c.size(); ++k)
    if (z.g[k] != 0) terms.push_back(z.g[k] * c[k]);
  return sum(terms);
}

Sign sign_of(const Interval& z) {
  if (z.lower() >= 0) return Sign::active;    // relu(z) = z
  if (z.upper() <= 0) return Sign::inactive;  // relu(z) = 0
  return Sign::undecided;
}

// eta x + sum_{i active} W_i (U_i x + b_i), exact on p and on each generator.
AffineEnclosure affine_piece(const FeedForward<Rational>& ff, const AffineEnclosure& x,
                             const std::vector<PreActivation>& z, const std::vector<bool>& active,
                             const IntervalBox& c) {
  AffineEnclosure y{x.p * ff.eta, {}, c};
  y.g.reserve(x.g.size());
  for (const auto& gk : x.g) y.g.push_back(gk * ff.eta);
  for (std::size_t i = 0; i < z.size(); ++i) {
    if (!active[i]) continue;
    const auto col = ff.W.col(static_cast<Eigen::Index>(i));
    y.p += col * z[i].a;
    for (std::size_t k = 0; k < y.g.size(); ++k)
      if (z[i].g[k] != 0) y.g[k] += col * z[i].g[k];
  }
  drop_zero_generators(y);
  return y;
}

// Hull over all sign patterns of the undecided units (each an exact case split).
std::optional<AffineEnclosure> branch_on_units(const FeedForward<Rational>& ff, const AffineEnclosure& x,
                                               const std::vector<PreActivation>& z, std::vector<bool> active,
                                               const std::vector<std::size_t>& undecided, unsigned prec) {
  std::optional<AffineEnclosure> only;  // the single feasible branch's exact-affine image
  std::optional<IntervalBox> hull_box;
  std::optional<Point> common_point;  // set while every feasible branch gives this exact point
  bool same_point = true;
  std::size_t feasible = 0;
  for (std::size_t pattern = 0; pattern < (std::size_t{1} << undecided.size()); ++pattern) {
    std::optional<IntervalBox> c = x.c;
    for (std::size_t u = 0; u < undecided.size() && c; ++u) {
      const bool on = (pattern >> u) & 1;
      active[undecided[u]] = on;
      c = contract_halfspace(*c, z[undecided[u]].a, z[undecided[u]].g, on ? 1 : -1);
    }
    if (!c) continue;  // no point of the enclosure has this sign pattern
    AffineEnclosure piece = affine_piece(ff, x, z, active, *c);
    const IntervalBox b = box_of(piece, prec);
    hull_box = hull_box ? hull(*hull_box, b) : b;
    same_point = same_point && piece.is_exact() && (!common_point || equal_points(*common_point, piece.p));
    if (same_point) common_point = piece.p;
    if (++feasible == 1) only = std::move(piece);
  }
  if (feasible == 1) return only;
  if (!hull_box) return std::nullopt;  // cannot happen for a non-empty box; caller falls back
  if (same_point) return AffineEnclosure::exact(*common_point);
  return enclosure_of_box(*hull_box);
}

}  // namespace

std::optional<IntervalBox> contract_halfspace(const IntervalBox& c, const Rational& a, const std::vector<Rational>& g,
                                              int sign) {
  IntervalBox out = c;
  const unsigned prec = c.empty() ? 64 : c.front().precision();
  for (std::size_t k = 0; k < out.size(); ++k) {
    if (g[k] == 0) continue;
    // sign*g_k c_k >= -(sign*a + sum_{m != k} sign*g_m c_m) >= -upper(S).
    std::vector<Interval> terms{Interval(a * sign, prec)};
    for (std::size_t m = 0; m < out.size(); ++m)
      if (m != k && g[m] != 0) terms.push_back((g[m] * sign) * out[m]);
    const Rational coef = g[k] * sign;
    const Interval bound = Interval(-sum(terms).upper(), prec) / coef;
    auto narrowed = coef > 0 ? intersect(out[k], bound.lower(), out[k].upper())
                             : intersect(out[k], out[k].lower(), bound.upper());
    if (!narrowed) return std::nullopt;
    out[k] = *narrowed;
  }
  // An exact constant constraint (all g zero) is decided by a alone.
  bool constant = true;
  for (const auto& gk : g) constant = constant && gk == 0;
  if (constant && a * sign < 0) return std::nullopt;
  return out;
}

FeedForwardOutcome feed_forward_enclosure(const FeedForward<Rational>& ff, const AffineEnclosure& x,
                                          unsigned precision_bits, std::size_t branch_limit) {
  FeedForwardOutcome out;
  if (x.is_exact()) {
    out.y = AffineEnclosure::exact(ff.apply(x.p));
    return out;
  }
  const std::size_t w = ff.width();
  std::vector<PreActivation> z(w);
  std::vector<bool> active(w, false);
  std::vector<std::size_t> undecided;
  for (std::size_t i = 0; i < w; ++i) {
    const Point u = ff.U.row(static_cast<Eigen::Index>(i)).transpose();
    z[i].a = dot(u, x.p) + ff.b[static_cast<Eigen::Index>(i)];
    for (const auto& gk : x.g) z[i].g.push_back(dot(u, gk));
    const Sign s = sign_of(range_of(z[i], x.c, precision_bits));
    active[i] = s == Sign::active;
    if (s == Sign::undecided) undecided.push_back(i);
  }
  out.undecided_units = undecided.size();
  if (undecided.empty()) {
    out.y = affine_piece(ff, x, z, active, x.c);
    return out;
  }
  if (undecided.size() <= branch_limit)
    if (auto y = branch_on_units(ff, x, z, active, undecided, precision_bits)) {
      out.y = std::move(*y);
      out.branched_units = undecided.size();
      return out;
    }
  // Interval ReLU: relu(z_u) in [0, upper(z_u)], taken as an independent coefficient of W_u.
  out.y = affine_piece(ff, x, z, active, x.c);
  for (std::size_t u : undecided) {
    const Interval zu = range_of(z[u], x.c, precision_bits);
    out.y.g.push_back(ff.W.col(static_cast<Eigen::Index>(u)));
    out.y.c.push_back(Interval::hull(Rational(0), zu.upper(), precision_bits));
  }
  out.interval_units = undecided.size();
  out.first_interval_unit = undecided.front();
  limit_generators(out.y, precision_bits);
  return out;
}

}  // namespace seqi
