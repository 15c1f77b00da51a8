#include "seqi/construction/collapse_directions.hpp"

#include <Eigen/Dense>
#include <algorithm>
#include <cmath>

#include "seqi/construction/conditioning_choice.hpp"
#include "seqi/numbers/dyadic.hpp"

namespace seqi {
namespace {

constexpr int kCentringBits = 24;  // a is rounded to multiples of 2^-(bits + 24)
constexpr int kFittedBits = 30;    // a fitted direction is rounded to multiples of 2^-30 of its largest entry

// x solving M x = rhs (M square), by Gaussian elimination in exact arithmetic; nullopt when M is
// singular.
std::optional<std::vector<Rational>> solve_exactly(std::vector<std::vector<Rational>> M, std::vector<Rational> rhs) {
  const std::size_t n = M.size();
  for (std::size_t col = 0; col < n; ++col) {
    std::size_t pivot = col;
    while (pivot < n && M[pivot][col] == 0) ++pivot;
    if (pivot == n) return std::nullopt;
    std::swap(M[pivot], M[col]);
    std::swap(rhs[pivot], rhs[col]);
    for (std::size_t row = 0; row < n; ++row) {
      if (row == col || M[row][col] == 0) continue;
      const Rational f = M[row][col] / M[col][col];
      for (std::size_t k = col; k < n; ++k) M[row][k] -= f * M[col][k];
      rhs[row] -= f * rhs[col];
    }
  }
  for (std::size_t i = 0; i < n; ++i) rhs[i] /= M[i][i];
  return rhs;
}

Point centred(const Point& w, const Point& c, int bits) {
  if (c.isZero()) return w;
  const Rational along = dot(w, c) / norm_sq(c);
  Point a(w.size());
  for (Eigen::Index i = 0; i < w.size(); ++i) a[i] = truncated_dyadic(w[i] - along * c[i], bits);
  return a.isZero() ? w : a;
}

}  // namespace

Rational truncated_dyadic(const Rational& x, int bits) {
  const Integer scaled = numerator(x) * (Integer(1) << bits) / denominator(x);
  return Rational(scaled) / Rational(Integer(1) << bits);
}

Point centred_direction(Rng& rng, int d, int bits, const Point& c) {
  return centred(dyadic_direction(rng, d, bits), c, bits + kCentringBits);
}

std::optional<Point> planned_direction(const std::vector<Point>& means, const Point& c,
                                       const std::vector<std::size_t>& order, const Rational& g) {
  const std::size_t N = means.size();
  const auto d = static_cast<std::size_t>(c.size());
  std::vector<Point> rows;
  std::vector<Rational> t;
  for (std::size_t i = 0; i + 1 < N; ++i) {
    rows.push_back(means[order[i]] - c);
    t.push_back((Rational(static_cast<long>(2 * i)) - Rational(static_cast<long>(N - 1))) * g / 2);
  }
  if (!c.isZero()) rows.emplace_back(c), t.emplace_back(0);
  if (rows.empty() || rows.size() > d) return std::nullopt;
  std::vector<std::vector<Rational>> gram(rows.size(), std::vector<Rational>(rows.size()));
  for (std::size_t i = 0; i < rows.size(); ++i)
    for (std::size_t k = 0; k < rows.size(); ++k) gram[i][k] = dot(rows[i], rows[k]);
  const auto y = solve_exactly(std::move(gram), std::move(t));
  if (!y) return std::nullopt;
  Point a = Point::Zero(static_cast<Eigen::Index>(d));
  for (std::size_t i = 0; i < rows.size(); ++i) a += rows[i] * (*y)[i];
  // |a . mu - a' . mu| < 2^-bits d max |mu_i| =: 2^-bits reach for a' a truncated to 2^-bits.
  Rational reach = 0;
  for (const auto& mu : means)
    for (Eigen::Index i = 0; i < mu.size(); ++i) reach = std::max(reach, Rational(abs(mu[i])));
  reach *= static_cast<long>(d);
  const long bits = reach == 0 ? 0 : std::max(0L, floor_log2(reach / g) + 11);
  for (Eigen::Index i = 0; i < a.size(); ++i) a[i] = truncated_dyadic(a[i], static_cast<int>(bits));
  return a;
}

std::optional<Point> discriminant_direction(const std::vector<Point>& means, const Point& c,
                                            const std::vector<std::size_t>& label) {
  const std::size_t N = means.size();
  const auto d = c.size();
  const std::size_t classes = label.empty() ? 0 : *std::max_element(label.begin(), label.end()) + 1;
  if (classes < 2 || classes == N) return std::nullopt;  // one class, or no class with two sequences
  std::vector<Eigen::VectorXd> x(N, Eigen::VectorXd(d));
  for (std::size_t j = 0; j < N; ++j)
    for (Eigen::Index i = 0; i < d; ++i) x[j][i] = Rational(means[j][i] - c[i]).convert_to<double>();
  std::vector<Eigen::VectorXd> centre(classes, Eigen::VectorXd::Zero(d));
  std::vector<double> count(classes, 0);
  Eigen::VectorXd overall = Eigen::VectorXd::Zero(d);
  for (std::size_t j = 0; j < N; ++j) centre[label[j]] += x[j], count[label[j]] += 1, overall += x[j];
  overall /= static_cast<double>(N);
  for (std::size_t k = 0; k < classes; ++k) centre[k] /= count[k];
  Eigen::MatrixXd within = Eigen::MatrixXd::Zero(d, d), between = Eigen::MatrixXd::Zero(d, d);
  for (std::size_t j = 0; j < N; ++j) within += (x[j] - centre[label[j]]) * (x[j] - centre[label[j]]).transpose();
  for (std::size_t k = 0; k < classes; ++k) between += count[k] * (centre[k] - overall) * (centre[k] - overall).transpose();
  within.diagonal().array() += 1e-6 * std::max(within.trace(), 1e-300) / static_cast<double>(d);
  const Eigen::GeneralizedSelfAdjointEigenSolver<Eigen::MatrixXd> solver(between, within);
  if (solver.info() != Eigen::Success) return std::nullopt;
  const Eigen::VectorXd a = solver.eigenvectors().col(d - 1);  // the largest ratio of spreads
  const double top = a.cwiseAbs().maxCoeff();
  if (!std::isfinite(top) || top == 0) return std::nullopt;
  Point w(d);
  for (Eigen::Index i = 0; i < d; ++i) w[i] = truncated_dyadic(Rational(a[i] / top), kFittedBits);
  if (w.isZero()) return std::nullopt;
  return centred(w, c, kFittedBits + kCentringBits);
}

Rational l1_norm(const Point& x) {
  Rational sum = 0;
  for (Eigen::Index i = 0; i < x.size(); ++i) sum += abs(x[i]);
  return sum;
}

// Score of a collapse direction (lem:relative-margins): (g / max |z|) (g / (|a|_inf reach)), g the
// smallest gap of the values z_j = a . mu_j and reach = max_j |mu_j|_1: the flat hats' relative
// window times the collapse's resolution (a tiny g from a long a amplifies the collapse layer).
// nullopt when two values tie.
std::optional<Rational> collapse_score(const Point& a, const std::vector<Point>& means, const Rational& reach) {
  std::vector<Rational> z;
  z.reserve(means.size());
  for (const auto& mu : means) z.push_back(dot(a, mu));
  const auto rel = smallest_relative_gap(z);
  if (means.size() < 2) return Rational(1);
  if (!rel || *rel == 0) return std::nullopt;
  Rational top = 0, longest = 0;
  for (const auto& v : z) top = std::max(top, Rational(abs(v)));
  for (Eigen::Index i = 0; i < a.size(); ++i) longest = std::max(longest, Rational(abs(a[i])));
  return *rel * (*rel * top) / (longest * reach);
}

}  // namespace seqi
