#include "seqi/construction/flat_norm.hpp"

#include <algorithm>
#include <cmath>

#include "seqi/numbers/dyadic.hpp"

namespace seqi {
namespace {

double approx(const Rational& x) { return x.convert_to<double>(); }

// 2 sqrt(in out): a balanced unit's contribution, up to the factor 1.25 of power-of-two steps.
double balanced(double in, double out) { return 2 * std::sqrt(in * out); }

// What the estimate needs of each run, in doubles, for one r_hat: the norm of its written value,
// that value read along r_hat, its values' range and its step.
struct RunFigures {
  double yy, y_r_hat, lo, hi, df;
};

std::vector<RunFigures> run_figures(const FlatHatTask& task, const Point& r_hat) {
  std::vector<RunFigures> out;
  out.reserve(task.runs.size());
  for (std::size_t u = 0; u < task.runs.size(); ++u) {
    const auto& run = task.runs[u];
    const Point& y = task.targets[run.front()];
    out.push_back({approx(norm_sq(y)), approx(dot(y, r_hat)), approx(task.z[run.front()]), approx(task.z[run.back()]),
                   approx(task.df_of(u))});
  }
  return out;
}

double norm_estimate(const std::vector<RunFigures>& runs, double r_hat_sq, long k) {
  const double rr = std::ldexp(r_hat_sq, static_cast<int>(2 * k));  // |r|^2
  double sum = 0;
  for (const auto& f : runs) {
    const double yr = std::ldexp(f.y_r_hat, static_cast<int>(k));  // y . r
    const double b[4] = {f.lo - 2 * f.df, f.lo - f.df, f.hi + f.df, f.hi + 2 * f.df};
    const int partner[4] = {1, 0, 3, 2};
    for (int i = 0; i < 4; ++i) {
      const double t = b[partner[i]];  // |y - v t|^2 with v = r / |r|^2
      const double out = std::max(0.0, f.yy - 2 * t * yr / rr + t * t / rr) / (f.df * f.df);
      sum += balanced(rr + b[i] * b[i], out);
    }
  }
  return sum;
}

}  // namespace

double flat_hats_norm_estimate(const FlatHatTask& task, const Point& r_hat, long k) {
  return norm_estimate(run_figures(task, r_hat), approx(norm_sq(r_hat)), k);
}

FlatScale lightest_nearby_scale(const FlatHatTask& task, const Point& r_hat, const FlatScale& base, long radius,
                                double& norm) {
  const std::vector<RunFigures> figures = run_figures(task, r_hat);
  const double r_hat_sq = approx(norm_sq(r_hat));
  norm = norm_estimate(figures, r_hat_sq, base.k);
  // The lighter scales, lightest first: the first whose order exists and whose float estimate
  // stays within the level is the lightest such.
  std::vector<std::pair<double, long>> lighter;
  for (long k = base.k - radius; k <= base.k + radius; ++k)
    if (const double e = norm_estimate(figures, r_hat_sq, k); k != base.k && e < norm) lighter.emplace_back(e, k);
  std::sort(lighter.begin(), lighter.end());
  std::vector<long> ks;
  for (const auto& [estimate, k] : lighter) ks.push_back(k);
  auto found = first_scale_within(task, r_hat, ks, base.mirrored, std::max(kFlatScaleLog2Goal, base.log2_error),
                                  base.default_k);
  if (!found) return base;
  for (const auto& [estimate, k] : lighter)
    if (k == found->k) norm = estimate;
  return std::move(*found);
}

}  // namespace seqi
