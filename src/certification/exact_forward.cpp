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
  index_valid_ = false;
}

void ExactForward::rebuild_index(const Point& r) {
  index_r_ = r;
  reading_.resize(state_.tokens.size());
  sorted_.clear();
  for (std::size_t i = 0; i < state_.tokens.size(); ++i) {
    reading_[i] = dot(r, state_.tokens[i]);
    sorted_.emplace(reading_[i], i);
  }
  index_valid_ = true;
  ++stats_.index_rebuilds;
}

void ExactForward::apply_feed_forward(const FeedForward<Rational>& ff) {
  auto form = identity_outside_breakpoints(ff);
  if (!form) {
    ++stats_.ff_dense_layers;
    for (auto& x : state_.tokens) x = ff.apply(x);
    stats_.ff_tokens_evaluated += state_.tokens.size();
    index_valid_ = false;
    return;
  }
  ++stats_.ff_sparse_layers;
  if (!index_valid_ || !equal_points(index_r_, form->r)) rebuild_index(form->r);
  // Tokens with lo < r.x < hi; all others are unchanged (lem:sparse-ff).
  std::vector<std::size_t> inside;
  for (auto it = sorted_.upper_bound(form->lo); it != sorted_.end() && it->first < form->hi; ++it)
    inside.push_back(it->second);
  for (std::size_t i : inside) {
    state_.tokens[i] = ff.apply(state_.tokens[i]);
    Rational t = dot(index_r_, state_.tokens[i]);
    if (t == reading_[i]) continue;
    auto range = sorted_.equal_range(reading_[i]);
    for (auto it = range.first; it != range.second; ++it)
      if (it->second == i) {
        sorted_.erase(it);
        break;
      }
    reading_[i] = t;
    sorted_.emplace(t, i);
  }
  stats_.ff_tokens_evaluated += inside.size();
}

}  // namespace seqi
