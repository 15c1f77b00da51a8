#include "seqi/certification/exact_forward.hpp"

#include "seqi/certification/one_direction_ff.hpp"

#include <algorithm>
#include <optional>

#include "seqi/numbers/bit_limit.hpp"

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
    for (std::size_t i = 0; i < X.size(); ++i) check_bits(X[i], state_.begin[j] + i);
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
    check_bits(out[i], i);
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
  const auto form = one_direction_form(ff);
  if (!form) {
    ++stats_.ff_dense_layers;
    for (std::size_t i = 0; i < state_.tokens.size(); ++i) {
      state_.tokens[i] = ff.apply(state_.tokens[i]);
      check_bits(state_.tokens[i], i);
    }
    stats_.ff_tokens_evaluated += state_.tokens.size();
    index_.invalidate();
    ++blocks_done_;
    return;
  }
  ensure_index(form->r);
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
      check_bits(last_out, i);
    }
    x = last_out;
  }
  for (std::size_t i : touched) {
    const Rational t = dot(form->r, state_.tokens[i]);
    index_.set(i, t, t);
  }
  stats_.ff_tokens_evaluated += touched.size();
  ++blocks_done_;
}

void ExactForward::check_bits(const Point& x, std::size_t i) const {
  check_bit_growth(x, [&] {
    const auto j = static_cast<std::size_t>(std::upper_bound(state_.begin.begin(), state_.begin.end(), i) -
                                            state_.begin.begin()) - 1;
    return "block " + std::to_string(blocks_done_ + 1) + ", sequence " + std::to_string(j + 1) + ", token " +
           std::to_string(i - state_.begin[j] + 1);
  });
}

}  // namespace seqi
