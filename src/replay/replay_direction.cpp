#include "replay/replay_direction.hpp"

#include <cmath>

namespace seqi {
namespace {

bool power_of_two_or_zero(double s) {
  int e = 0;
  return s == 0 || (std::isfinite(s) && std::abs(std::frexp(s, &e)) == 0.5);
}

}  // namespace

template <class F>
Vec<F> canonical_direction(const Vec<F>& r) {
  Eigen::Index c = 0;
  while (c < r.size() && r[c] == F(0)) ++c;
  if (c == r.size() || !std::isfinite(r[c])) return r;
  int e = 0;
  std::frexp(r[c], &e);  // |r_c| = m 2^e, m in [1/2, 1)
  const F sign = r[c] < F(0) ? F(-1) : F(1);
  const Vec<F> scaled = r.unaryExpr([e, sign](F v) { return sign * std::ldexp(v, 1 - e); });
  const bool exact = scaled.unaryExpr([e, sign](F v) { return sign * std::ldexp(v, e - 1); }) == r;
  return exact ? scaled : r;
}

template <class F>
std::optional<OneDirection<F>> one_direction(const Mat<F>& U) {
  Eigen::Index first = 0, c = 0;
  while (first < U.rows() && U.row(first).isZero()) ++first;
  if (first == U.rows()) return std::nullopt;
  while (U(first, c) == F(0)) ++c;
  OneDirection<F> out{canonical_direction<F>(U.row(first).transpose()), Vec<F>(U.rows())};
  for (Eigen::Index k = 0; k < U.rows(); ++k) {
    out.slope[k] = U(k, c) / out.r[c];
    if (!power_of_two_or_zero(static_cast<double>(out.slope[k])) || U.row(k).transpose() != out.r * out.slope[k])
      return std::nullopt;
  }
  return out;
}

template Vec<float> canonical_direction(const Vec<float>&);
template Vec<double> canonical_direction(const Vec<double>&);
template std::optional<OneDirection<float>> one_direction(const Mat<float>&);
template std::optional<OneDirection<double>> one_direction(const Mat<double>&);

}  // namespace seqi
