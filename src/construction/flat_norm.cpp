#include "seqi/construction/flat_norm.hpp"

#include <algorithm>
#include <cmath>

#include "seqi/numbers/dyadic.hpp"

namespace seqi {
namespace {

double approx(const Rational& x) { return x.convert_to<double>(); }

// 2 sqrt(in out): a balanced unit's contribution, up to the factor 1.25 of power-of-two steps.
double balanced(double in, double out) { return 2 * std::sqrt(in * out); }

}  // namespace

double flat_hats_norm_estimate(const FlatHatTask& task, const Point& r_hat, long k) {
  const double rr = std::ldexp(approx(norm_sq(r_hat)), static_cast<int>(2 * k));  // |r|^2
  double sum = 0;
  for (std::size_t u = 0; u < task.runs.size(); ++u) {
    const auto& run = task.runs[u];
    const double df = approx(task.df_of(u));
    const Point& y = task.targets[run.front()];
    const double yy = approx(norm_sq(y)), yr = std::ldexp(approx(dot(y, r_hat)), static_cast<int>(k));  // y . r
    const double lo = approx(task.z[run.front()]), hi = approx(task.z[run.back()]);
    const double b[4] = {lo - 2 * df, lo - df, hi + df, hi + 2 * df};
    const int partner[4] = {1, 0, 3, 2};
    for (int i = 0; i < 4; ++i) {
      const double t = b[partner[i]];  // |y - v t|^2 with v = r / |r|^2
      const double out = std::max(0.0, yy - 2 * t * yr / rr + t * t / rr) / (df * df);
      sum += balanced(rr + b[i] * b[i], out);
    }
  }
  return sum;
}

FlatScale lightest_nearby_scale(const FlatHatTask& task, const Point& r_hat, const FlatScale& base, long radius,
                                double& norm) {
  std::vector<Rational> t_hat;
  t_hat.reserve(task.runs.size());
  for (const auto& run : task.runs) t_hat.push_back(dot(r_hat, task.targets[run.front()]));
  const double level = std::max(kFlatScaleLog2Goal, base.log2_error);
  FlatScale best = base;
  norm = flat_hats_norm_estimate(task, r_hat, base.k);
  for (long k = base.k - radius; k <= base.k + radius; ++k) {
    if (k == base.k) continue;
    const double estimate = flat_hats_norm_estimate(task, r_hat, k);
    if (!(estimate < norm)) continue;
    std::vector<Rational> t = t_hat;
    for (auto& x : t) scale_by_pow2(x, k);
    auto order = flat_run_order(task, t, base.mirrored);
    if (!order) continue;
    const double error = flat_float_log2_error(task, r_hat, k, *order, base.mirrored);
    if (error > level) continue;
    best = FlatScale{k, base.default_k, std::move(*order), base.mirrored, error};
    norm = estimate;
  }
  return best;
}

}  // namespace seqi
