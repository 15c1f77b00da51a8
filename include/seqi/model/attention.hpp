// Self-attention SA_i(X) = rho*x_i + V * sum_l pi_il(X) x_l with scores s_il = <A x_i, x_l>.
#pragma once
#include <algorithm>
#include <cmath>
#include <cstddef>
#include <vector>

#include "seqi/model/structured_matrix.hpp"

namespace seqi {

template <class S>
struct SelfAttention {
  S rho = S(1);
  StructuredMatrix<S> A, V;

  static SelfAttention identity() { return {S(1), {}, {}}; }
  // rho = 1 and V = 0: every token is returned unchanged whatever A is.
  bool is_identity() const { return rho == S(1) && V.is_zero(); }
  // A = 0: all scores equal, so hardmax and softmax weights are exactly 1/n (Lemma lem:mean-shift).
  bool is_mean_shift() const { return A.is_zero(); }

  std::size_t stored_scalars(std::size_t d) const {
    return 1 + A.stored_scalars(d) + V.stored_scalars(d);
  }
  S stored_norm_sq() const { return rho * rho + A.stored_norm_sq() + V.stored_norm_sq(); }
};

template <class S>
using TokenList = std::vector<Vec<S>>;

template <class S>
Vec<S> mean_of(const TokenList<S>& X) {
  Vec<S> m = Vec<S>::Zero(X.front().size());
  for (const auto& x : X) m += x;
  return m / S(static_cast<long>(X.size()));
}

// Hardmax: pi_il = 1/|C_i| on C_i = argmax_l s_il (ties share equally). O(n^2 d).
// Exact for S = Rational; for other S the argmax decision is only as good as S.
template <OrderedScalar S>
TokenList<S> apply_hardmax(const SelfAttention<S>& sa, const TokenList<S>& X) {
  if (sa.is_identity()) return X;
  TokenList<S> out;
  out.reserve(X.size());
  if (sa.is_mean_shift()) {
    Vec<S> shift = sa.V.apply(mean_of(X));
    for (const auto& x : X) out.push_back(x * sa.rho + shift);
    return out;
  }
  for (const auto& xi : X) {
    Vec<S> Axi = sa.A.apply(xi);
    S best{};
    Vec<S> acc = Vec<S>::Zero(xi.size());
    long count = 0;
    for (std::size_t l = 0; l < X.size(); ++l) {
      S s = Axi.dot(X[l]);
      if (count == 0 || s > best) {
        best = s;
        acc = X[l];
        count = 1;
      } else if (s == best) {
        acc += X[l];
        ++count;
      }
    }
    out.push_back(xi * sa.rho + sa.V.apply(acc / S(count)));
  }
  return out;
}

// Softmax at temperature tau in floating point (for the double cross-check only; never certifies).
inline TokenList<double> apply_softmax(const SelfAttention<double>& sa, const TokenList<double>& X,
                                       double tau) {
  if (sa.is_identity()) return X;
  if (sa.is_mean_shift()) return apply_hardmax(sa, X);
  TokenList<double> out;
  out.reserve(X.size());
  std::vector<double> s(X.size());
  for (const auto& xi : X) {
    Vec<double> Axi = sa.A.apply(xi);
    for (std::size_t l = 0; l < X.size(); ++l) s[l] = Axi.dot(X[l]) / tau;
    double top = *std::max_element(s.begin(), s.end());
    Vec<double> acc = Vec<double>::Zero(xi.size());
    double z = 0;
    for (std::size_t l = 0; l < X.size(); ++l) {
      double w = std::exp(s[l] - top);
      z += w;
      acc += X[l] * w;
    }
    out.push_back(xi * sa.rho + sa.V.apply(acc / z));
  }
  return out;
}

}  // namespace seqi
