#include "seqi/certification/exact_forward.hpp"

#include "seqi/certification/one_direction_ff.hpp"

namespace seqi {

void ExactForward::apply_attention(const SelfAttention<Rational>& sa) {
  if (sa.is_identity()) {
    ++stats_.attention_layers_skipped;
    return;
  }
  for (std::size_t j = 0; j < state_.sequences(); ++j) {
    auto first = state_.tokens.begin() + static_cast<std::ptrdiff_t>(state_.begin[j]);
    auto last = state_.tokens.begin() + static_cast<std::ptrdiff_t>(state_.begin[j + 1]);
    TokenList<Rational> X(first, last);
    X = apply_hardmax(sa, X);
    std::move(X.begin(), X.end(), first);
  }
  index_.invalidate();
}

void ExactForward::apply_attention_with_proven_argmax(const SelfAttention<Rational>& sa,
                                                      const std::vector<std::size_t>& attends) {
  std::vector<Point> out(state_.tokens.size());
  for (std::size_t i = 0; i < out.size(); ++i)
    out[i] = state_.tokens[i] * sa.rho + sa.V.apply(state_.tokens[attends[i]]);
  state_.tokens = std::move(out);
  index_.invalidate();
}

void ExactForward::apply_feed_forward(const FeedForward<Rational>& ff) {
  auto form = identity_outside_breakpoints(ff);
  if (!form) {
    ++stats_.ff_dense_layers;
    for (auto& x : state_.tokens) x = ff.apply(x);
    stats_.ff_tokens_evaluated += state_.tokens.size();
    index_.invalidate();
    return;
  }
  ++stats_.ff_sparse_layers;
  if (!index_.valid_for(form->r)) {
    index_.reset(form->r, state_.tokens.size());
    for (std::size_t i = 0; i < state_.tokens.size(); ++i) {
      const Rational t = dot(form->r, state_.tokens[i]);
      index_.set(i, t, t);
    }
    ++stats_.index_rebuilds;
  }
  // Tokens with lo < r.x < hi; all others are unchanged (lem:sparse-ff).
  const auto inside = index_.meeting(form->lo, form->hi);
  for (std::size_t i : inside) {
    state_.tokens[i] = ff.apply(state_.tokens[i]);
    const Rational t = dot(form->r, state_.tokens[i]);
    index_.set(i, t, t);
  }
  stats_.ff_tokens_evaluated += inside.size();
}

}  // namespace seqi
