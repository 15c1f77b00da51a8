#include "seqi/certification/exact_forward.hpp"

#include "seqi/certification/one_direction_ff.hpp"

#include <algorithm>
#include <optional>

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
  // V x_att once per attended token: many tokens attend to the same leader.
  std::vector<std::optional<Point>> value(state_.tokens.size());
  std::vector<Point> out(state_.tokens.size());
  for (std::size_t i = 0; i < out.size(); ++i) {
    auto& v = value[attends[i]];
    if (!v) v = sa.V.apply(state_.tokens[attends[i]]);
    out[i] = sa.rho == 0 ? *v : Point(state_.tokens[i] * sa.rho + *v);
  }
  state_.tokens = std::move(out);
  index_.invalidate();
}

void ExactForward::ensure_index(const Point& r) {
  if (index_.valid_for(r)) return;
  index_.reset(r, state_.tokens.size());
  for (std::size_t i = 0; i < state_.tokens.size(); ++i) {
    const Rational t = dot(r, state_.tokens[i]);
    index_.set(i, t, t);
  }
  ++stats_.index_rebuilds;
}

void ExactForward::apply_feed_forward(const FeedForward<Rational>& ff) {
  last_relative_window_.reset();
  const auto form = one_direction_form(ff);
  if (!form) {
    ++stats_.ff_dense_layers;
    for (auto& x : state_.tokens) x = ff.apply(x);
    stats_.ff_tokens_evaluated += state_.tokens.size();
    index_.invalidate();
    return;
  }
  ensure_index(form->r);
  if (form->identity_outside && !state_.tokens.empty()) {
    const Rational centre = (form->lo + form->hi) / 2;
    const auto [lo, hi] = index_.span();
    const Rational reach = std::max(abs(centre - lo), abs(hi - centre));
    if (reach > 0) last_relative_window_ = (form->hi - form->lo) / 2 / reach;
  }
  // Identity outside (lo, hi): only the tokens inside are touched (lem:sparse-ff).
  const auto touched = form->identity_outside ? index_.meeting(form->lo, form->hi) : index_.all();
  form->identity_outside ? ++stats_.ff_sparse_layers : ++stats_.ff_dense_layers;
  // Equal points have equal readings, so repeated inputs come in runs: reuse the last result.
  Point last_in, last_out;
  for (std::size_t i : touched) {
    Point& x = state_.tokens[i];
    if (last_in.size() == 0 || !equal_points(x, last_in)) {
      last_in = x;
      last_out = apply_one_direction(ff, *form, x, index_.reading(i));
    }
    x = last_out;
  }
  for (std::size_t i : touched) {
    const Rational t = dot(form->r, state_.tokens[i]);
    index_.set(i, t, t);
  }
  stats_.ff_tokens_evaluated += touched.size();
}

}  // namespace seqi
