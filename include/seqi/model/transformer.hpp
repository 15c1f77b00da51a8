// A transformer: blocks B(X) = FF(SA(X)), attention first (as in the paper authors' code).
#pragma once
#include <algorithm>
#include <cstddef>
#include <string>
#include <vector>

#include "seqi/core/execution.hpp"
#include "seqi/model/attention.hpp"
#include "seqi/model/feed_forward.hpp"

namespace seqi {

// Which phase of the construction a block belongs to ("user" for models read from a file).
enum class Phase { separation, placement, interpolation, user };
const char* phase_name(Phase p);

template <class S>
struct Block {
  SelfAttention<S> sa;
  FeedForward<S> ff;
  Phase phase = Phase::user;
};

template <class S>
struct Transformer {
  int dimension = 0;
  std::vector<Block<S>> blocks;

  std::size_t max_width() const {
    std::size_t w = 0;
    for (const auto& b : blocks) w = std::max(w, b.ff.width());
    return w;
  }

  // ||theta||^2: the sum of squares of the stored scalars (lem:param-norm).
  S stored_norm_sq() const {
    S sum = S(0);
    for (const auto& b : blocks) sum += b.sa.stored_norm_sq() + b.ff.stored_norm_sq();
    return sum;
  }
};

// The exact ||theta||^2 of `model` (lem:param-norm), equal to model.stored_norm_sq(): block norms
// computed on exec's threads, split among exec.sharding's processes (collective then), and added
// by pairwise summation (numbers/exact_sum), which stays O(n log n) where the blocks' denominators
// differ.
Rational exact_norm_sq(const Transformer<Rational>& model, const Execution& exec);
inline Rational exact_norm_sq(const Transformer<Rational>& model, unsigned threads = 1) {
  return exact_norm_sq(model, Execution{nullptr, threads, nullptr});
}

// Dense forward pass of one sequence: O(L n^2 d) for attention, O(L n w d) for FF.
template <OrderedScalar S>
TokenList<S> forward_dense(const Transformer<S>& model, TokenList<S> X) {
  for (const auto& block : model.blocks) {
    X = apply_hardmax(block.sa, X);
    for (auto& x : X) x = block.ff.apply(x);
  }
  return X;
}

// Elementwise conversion of an exact model to scalar type T (for the double cross-check).
template <class T>
Transformer<T> convert_model(const Transformer<Rational>& m) {
  auto cv = [](const Rational& x) { return scalar_from_rational<T>(x); };
  auto cvec = [&](const Vec<Rational>& v) { return Vec<T>(v.unaryExpr(cv)); };
  auto cmat = [&](const StructuredMatrix<Rational>& s) {
    StructuredMatrix<T> out{cv(s.alpha), {}};
    for (const auto& t : s.terms) out.terms.push_back({cvec(t.p), cvec(t.q)});
    return out;
  };
  Transformer<T> out{m.dimension, {}};
  for (const auto& b : m.blocks) {
    Block<T> nb;
    nb.sa = {cv(b.sa.rho), cmat(b.sa.A), cmat(b.sa.V)};
    nb.ff = {cv(b.ff.eta), Mat<T>(b.ff.U.dense().unaryExpr(cv)), cvec(b.ff.b), Mat<T>(b.ff.W.dense().unaryExpr(cv))};
    nb.phase = b.phase;
    out.blocks.push_back(std::move(nb));
  }
  return out;
}

}  // namespace seqi
