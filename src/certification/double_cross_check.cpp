#include "seqi/certification/double_cross_check.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

namespace seqi {
namespace {

// Index of the largest double score of token i against the sequence X under A.
std::size_t double_argmax(const SelfAttention<double>& sa, const TokenList<double>& X, std::size_t i) {
  const Vec<double> Ax = sa.A.apply(X[i]);
  std::size_t best = 0;
  for (std::size_t l = 1; l < X.size(); ++l)
    if (Ax.dot(X[l]) > Ax.dot(X[best])) best = l;
  return best;
}

}  // namespace

DoubleCrossCheck double_softmax_cross_check(const Transformer<Rational>& exact_model, const Dataset& data, double tau,
                                            std::optional<std::size_t> collapse_block,
                                            const std::vector<std::size_t>& attends) {
  const Transformer<double> model = convert_model<double>(exact_model);
  DoubleCrossCheck out;
  std::size_t offset = 0;
  double per_token = 0;
  for (const auto& b : model.blocks) per_token += static_cast<double>(b.ff.U.size() + b.ff.W.size() + b.ff.W.rows());
  double work = 0;
  for (const auto& pair : data.pairs) {
    work += per_token * static_cast<double>(pair.input.size());
    if (out.sequences_checked > 0 && work > kDoubleCheckWorkBudget) break;
    ++out.sequences_checked;
    TokenList<double> X;
    for (const auto& x : pair.input) X.push_back(vector_from_rational<double>(x));
    for (std::size_t b = 0; b < model.blocks.size(); ++b) {
      if (collapse_block && b == *collapse_block && !attends.empty())
        for (std::size_t i = 0; i < X.size(); ++i)
          if (offset + double_argmax(model.blocks[b].sa, X, i) != attends[offset + i]) ++out.wrong_leader;
      X = apply_softmax(model.blocks[b].sa, X, tau);
      for (auto& x : X) x = model.blocks[b].ff.apply(x);
    }
    for (const auto& x : X) {
      if (!x.allFinite()) {
        ++out.nonfinite;
        continue;
      }
      double nearest = std::numeric_limits<double>::infinity();
      for (const auto& y : pair.output) nearest = std::min(nearest, (x - vector_from_rational<double>(y)).norm());
      out.max_distance = std::max(out.max_distance, nearest);
    }
    offset += pair.input.size();
  }
  return out;
}

}  // namespace seqi
