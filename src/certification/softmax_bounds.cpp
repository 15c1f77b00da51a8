#include "seqi/certification/softmax_bounds.hpp"

#include <algorithm>

namespace seqi {

TauStarBound certified_tau_star(const std::vector<std::size_t>& n, const std::vector<std::optional<Rational>>& G,
                                const std::vector<Rational>& D, const Rational& df, unsigned precision) {
  TauStarBound out;
  for (std::size_t j = 0; j < n.size(); ++j) {
    const Rational X = Rational(static_cast<long>(n[j] - 1)) * D[j] / df;
    if (n[j] <= 1 || !G[j] || X <= 1) {  // error bound <= df e^{-G/tau} < df for every tau
      out.per_sequence.emplace_back();
      continue;
    }
    // tau_j = G / ln X >= G / U for any rational U >= ln X > 0: the outward upper end of
    // ln X, or X - 1 (ln X <= X - 1), whichever is smaller. Exact division, no interval
    // quotient (whose divisor could touch 0 when X is within rounding of 1).
    const Rational ln_upper = std::min(log(Interval(X, precision)).upper(), Rational(X - 1));
    const Rational lower = *G[j] / ln_upper;
    out.per_sequence.emplace_back(lower);
    if (out.unbounded || lower < out.lower) {
      out.unbounded = false;
      out.lower = lower;
      out.binding = j;
    }
  }
  if (!out.unbounded) out.lower = round_down_significant(out.lower, 6);
  return out;
}

Rational collapse_error_bound(std::size_t n, const Rational& G, const Rational& D, const Rational& tau,
                              unsigned precision) {
  if (n <= 1 || D == 0) return 0;
  const Interval e = exp_of_nonpositive(-G / tau, precision);
  return (e * Rational(static_cast<long>(n - 1) * D)).upper();
}

Rational round_down_significant(const Rational& x, int digits) {
  Integer lo = 1;
  for (int k = 1; k < digits; ++k) lo *= 10;
  const Integer hi = lo * 10;
  // x = y / factor with y in [10^(digits-1), 10^digits); truncating y rounds down.
  // Start from log10(x) estimated from bit lengths (0.30103 ~ log10 2, integer arithmetic);
  // the exact loops below then take at most a few steps.
  using boost::multiprecision::msb;
  const long long e = static_cast<long long>(msb(numerator(x))) - static_cast<long long>(msb(denominator(x)));
  const long long shift = (digits - 1) - e * 30103 / 100000;
  const Integer power = boost::multiprecision::pow(Integer(10), static_cast<unsigned>(shift < 0 ? -shift : shift));
  Rational factor = shift >= 0 ? Rational(power) : Rational(Integer(1), power);
  Rational y = x * factor;
  while (y < Rational(lo)) y *= 10, factor *= 10;
  while (y >= Rational(hi)) y /= 10, factor /= 10;
  return Rational(Integer(numerator(y) / denominator(y))) / factor;
}

}  // namespace seqi
