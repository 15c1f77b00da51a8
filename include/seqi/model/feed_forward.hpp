// Feed-forward layer FF(x) = eta*x + W*relu(U*x + b), width w = rows of U.
#pragma once
#include <cstddef>

#include "seqi/model/factored_matrix.hpp"
#include "seqi/numbers/scalar.hpp"

namespace seqi {

template <class S>
struct FeedForward {
  S eta = S(1);
  FactoredMatrix<S> U;  // w x d
  Vec<S> b;             // w
  FactoredMatrix<S> W;  // d x w

  std::size_t width() const { return static_cast<std::size_t>(U.rows()); }

  // Branches on the sign of each pre-activation: only for scalars whose comparisons decide.
  Vec<S> apply(const Vec<S>& x) const
    requires OrderedScalar<S>
  {
    Vec<S> y = x * eta;
    const Vec<S> pre = U.apply(x) + b;
    for (Eigen::Index i = 0; i < pre.size(); ++i)
      if (pre[i] > S(0)) y += W.col(i) * pre[i];
    return y;
  }

  // eta, U, b, W: 2wd + w + 1 parameters (def:model), however U and W are stored.
  std::size_t stored_scalars() const {
    return 1 + static_cast<std::size_t>(U.size() + b.size() + W.size());
  }
  S stored_norm_sq() const { return eta * eta + U.squared_norm() + b.squaredNorm() + W.squared_norm(); }
};

}  // namespace seqi
