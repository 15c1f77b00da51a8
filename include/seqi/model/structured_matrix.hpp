// A d x d matrix stored as alpha*I + sum_r p_r q_r^T (low rank plus a multiple of I).
#pragma once
#include <cstddef>
#include <utility>
#include <vector>

#include "seqi/numbers/scalar.hpp"

namespace seqi {

template <class S>
struct RankOneTerm {
  Vec<S> p, q;  // contributes p q^T
};

template <class S>
struct StructuredMatrix {
  S alpha = S(0);
  std::vector<RankOneTerm<S>> terms;

  static StructuredMatrix zero() { return {}; }
  static StructuredMatrix scaled_identity(const S& a) { return {a, {}}; }
  static StructuredMatrix rank_one(const Vec<S>& p, const Vec<S>& q) { return {S(0), {{p, q}}}; }

  bool is_zero() const { return alpha == S(0) && terms.empty(); }
  std::size_t rank_of_low_rank_part() const { return terms.size(); }

  // M x in O(d * (1 + rank)).
  Vec<S> apply(const Vec<S>& x) const {
    Vec<S> y = x * alpha;
    for (const auto& t : terms) {
      S c = t.q.dot(x);
      y += t.p * c;
    }
    return y;
  }

  // Stored scalars: alpha plus 2d per rank-one term.
  std::size_t stored_scalars(std::size_t d) const { return 1 + 2 * d * terms.size(); }
  // Sum of squares of the stored scalars.
  S stored_norm_sq() const {
    S s = alpha * alpha;
    for (const auto& t : terms) s += t.p.squaredNorm() + t.q.squaredNorm();
    return s;
  }
};

}  // namespace seqi
