// lem:hinge-interpolation: the mean collapse's tokens z_j v sent to their targets by hinge units.
#include "seqi/construction/hinge_interpolation.hpp"

#include <algorithm>
#include <cmath>
#include <string>

#include "seqi/construction/balance_units.hpp"
#include "seqi/construction/flat_scale.hpp"
#include "seqi/numbers/dyadic.hpp"

namespace seqi {
namespace {

constexpr int kScaleRadius = 12;  // scales 2^k of r tried on either side of |r| = 1
constexpr std::size_t kWidth = 4;

// x minus its orthogonal projection on span(basis); basis pairwise orthogonal, nonzero.
Point orthogonal_part(Point x, const std::vector<Point>& basis) {
  for (const Point& q : basis) x -= q * Rational(dot(x, q) / norm_sq(q));
  return x;
}

// One unit: output column w times relu(u . x + b).
struct Unit {
  Point u;
  Rational b;
  Point w;
};

// The hinge units in the order of their knots, then the last layer's two (constant, -v hinge).
// sorted: (z, sequence) by increasing z, z pairwise distinct.
std::vector<Unit> hinge_units(const std::vector<std::pair<Rational, std::size_t>>& sorted,
                              const std::vector<Point>& targets, const Point& r, const Point& v) {
  const auto d = r.size();
  std::vector<Unit> units;
  Point slope = Point::Zero(d);
  for (std::size_t k = 0; k + 1 < sorted.size(); ++k) {
    const Point next = (targets[sorted[k + 1].second] - targets[sorted[k].second]) /
                       Rational(sorted[k + 1].first - sorted[k].first);
    const Point change = next - slope;  // orthogonal to r: r . y is one value on every target
    if (!change.isZero()) units.push_back({r, -sorted[k].first, change});
    slope = next;
  }
  const Rational& z1 = sorted.front().first;
  units.push_back({Point::Zero(d), Rational(1), Point(targets[sorted.front().second] - v * z1)});
  if (sorted.size() > 1) units.push_back({r, -z1, Point(-v)});
  return units;
}

// ||theta||^2 of the units balanced, in doubles (a choice only): 2 |(u, b)| |w| per unit.
double balanced_cost(const std::vector<Unit>& units) {
  double sum = 0;
  for (const Unit& u : units) {
    const double in = std::sqrt((norm_sq(u.u) + u.b * u.b).convert_to<double>());
    sum += 2 * in * std::sqrt(norm_sq(u.w).convert_to<double>());
  }
  return sum;
}

// log2 of an estimate of a float64 run's error on the written targets relative to max(1, |y_j|):
// at z_j every active unit adds its value |w| (z_j - zeta) and rounds its pre-activation
// (|r|_1 |x| + |zeta|) |w|; about (d + units) roundings of 2^-53 each (a choice only, in doubles).
double float64_log2_error(const std::vector<std::pair<Rational, std::size_t>>& sorted,
                          const std::vector<Point>& targets, const std::vector<Unit>& units, const Point& r) {
  double r_one = 0;
  for (Eigen::Index c = 0; c < r.size(); ++c) r_one += std::fabs(r[c].convert_to<double>());
  const auto inf = [](const Point& x) {
    double m = 0;
    for (Eigen::Index c = 0; c < x.size(); ++c) m = std::max(m, std::fabs(x[c].convert_to<double>()));
    return m;
  };
  std::vector<double> w(units.size()), zeta(units.size());
  for (std::size_t k = 0; k < units.size(); ++k) w[k] = inf(units[k].w), zeta[k] = -units[k].b.convert_to<double>();
  const double v_inf = units.size() > 1 ? inf(units.back().w) : 0;
  const double rounding = static_cast<double>(r.size() + static_cast<Eigen::Index>(units.size())) * 0x1p-53;
  double worst = 0;
  for (const auto& [z_exact, j] : sorted) {
    const double z = z_exact.convert_to<double>(), x = std::fabs(z) * v_inf;
    double sum = x;
    for (std::size_t k = 0; k < units.size(); ++k) {
      const bool constant = units[k].u.isZero();
      if (!constant && z <= zeta[k]) continue;
      sum += constant ? w[k] : w[k] * ((z - zeta[k]) + r_one * x + std::fabs(zeta[k]));
    }
    worst = std::max(worst, rounding * sum / std::max(1.0, inf(targets[j])));
  }
  return worst > 0 ? std::log2(worst) : -1100;
}

// The layers, at most kWidth units each, in order: the last holds the last two units (constant
// and -v hinge), whose outputs have a part along v; every earlier unit's output is orthogonal to r.
std::vector<FeedForward<Rational>> hinge_layers(const std::vector<Unit>& units, Eigen::Index d) {
  const std::size_t layers = (units.size() + kWidth - 1) / kWidth;
  std::vector<std::size_t> size(layers, kWidth);
  size.back() = units.size() - kWidth * (layers - 1);
  if (size.back() == 1 && layers > 1) --size[layers - 2], ++size.back();
  std::vector<std::vector<const Unit*>> per(layers);
  for (std::size_t l = 0, k = 0; l < layers; ++l)
    for (std::size_t i = 0; i < size[l]; ++i) per[l].push_back(&units[k++]);
  std::vector<FeedForward<Rational>> out;
  for (const auto& layer : per) {
    FeedForward<Rational> ff;
    ff.eta = 1;
    const auto w = static_cast<Eigen::Index>(layer.size());
    Mat<Rational> U = Mat<Rational>::Zero(w, d), W = Mat<Rational>::Zero(d, w);
    ff.b = Vec<Rational>::Zero(w);
    for (Eigen::Index k = 0; k < w; ++k) {
      const Unit& u = *layer[static_cast<std::size_t>(k)];
      U.row(k) = u.u.transpose();
      ff.b[k] = u.b;
      W.col(k) = u.w;
    }
    ff.U = std::move(U), ff.W = std::move(W);
    balance_hidden_units(ff);  // lem:relu-rescaling
    out.push_back(std::move(ff));
  }
  return out;
}

}  // namespace

std::optional<Point> reading_constant_on_targets(const std::vector<Point>& targets) {
  if (targets.empty()) return std::nullopt;
  const auto d = targets.front().size();
  std::vector<Point> basis;  // orthogonal basis of the differences' span (exact Gram-Schmidt)
  for (std::size_t i = 1; i < targets.size(); ++i) {
    Point w = orthogonal_part(targets[i] - targets.front(), basis);
    if (!w.isZero()) basis.push_back(std::move(w));
  }
  if (static_cast<Eigen::Index>(basis.size()) >= d) return std::nullopt;
  for (Eigen::Index c = -1; c < d; ++c) {
    Point seed = c < 0 ? targets.front() : Point(Point::Unit(d, c));
    Point r = orthogonal_part(std::move(seed), basis);
    if (!r.isZero()) return r;
  }
  return std::nullopt;  // not reached: the span is not the whole space
}

bool build_hinge_interpolation(const Dataset& data, Construction& out) {
  auto& rec = out.record.interpolation;
  std::vector<Point> targets;
  for (const auto& pair : data.pairs) targets.push_back(pair.output[0]);
  if (targets.size() != rec.z.size() || targets.empty()) return false;
  const auto r0 = reading_constant_on_targets(targets);
  if (!r0) return false;
  std::vector<std::pair<Rational, std::size_t>> sorted;
  for (std::size_t j = 0; j < rec.z.size(); ++j) sorted.emplace_back(rec.z[j], j);
  std::sort(sorted.begin(), sorted.end());
  const Rational gap = smallest_sorted_gap(sorted);
  if (gap == 0) return false;
  // r scaled by 2^k: the hinges read z whatever k (r . v = 1); |r| trades the hinges' |(u, b)|
  // against |V|^2 = |a|^2 / |r|^2. The lightest estimate wins.
  const long unit_exponent = floor_log2(norm_sq(*r0)) / 2;
  Point r;
  double best = 0;
  for (long k = -kScaleRadius; k <= kScaleRadius; ++k) {
    const Point rk = *r0 * pow2(k - unit_exponent);
    const Point vk = rk / norm_sq(rk);
    const std::vector<Unit> units = hinge_units(sorted, targets, rk, vk);
    if (float64_log2_error(sorted, targets, units, rk) > kFlatScaleLog2Goal) continue;  // rem:flat-range's goal
    const double cost = balanced_cost(units) + (norm_sq(rec.a) / norm_sq(rk)).convert_to<double>();
    if (r.size() == 0 || cost < best) best = cost, r = rk;
  }
  if (r.size() == 0) return false;
  rec.reading = r;
  rec.v = r / norm_sq(r);
  const std::vector<Unit> units = hinge_units(sorted, targets, rec.reading, rec.v);
  std::vector<FeedForward<Rational>> layers = hinge_layers(units, r.size());
  rec.gap = gap;
  rec.df = dyadic_floor_at_most_one(gap / 8);
  rec.runs.clear(), rec.order.clear(), rec.mirrored.clear(), rec.run_df.clear();
  rec.offset = Point();
  rec.by_hinges = true;
  rec.hinges = units.size() - std::min<std::size_t>(units.size(), 2);
  out.model.blocks.clear();
  out.record.collapse_block = 0;
  for (std::size_t l = 0; l < layers.size(); ++l) {
    Block<Rational> block{SelfAttention<Rational>::identity(), std::move(layers[l]), Phase::interpolation};
    if (l == 0)
      block.sa = {Rational(0), StructuredMatrix<Rational>::scaled_identity(Rational(0)),
                  StructuredMatrix<Rational>::rank_one(rec.v, rec.a)};
    out.model.blocks.push_back(std::move(block));
  }
  return true;
}

}  // namespace seqi
