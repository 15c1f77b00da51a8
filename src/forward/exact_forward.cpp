#include "seqi/forward/exact_forward.hpp"

#include <algorithm>
#include <map>
#include <optional>
#include <stdexcept>
#include <utility>

#include "seqi/core/parallel.hpp"
#include "seqi/forward/pattern_image.hpp"
#include "seqi/forward/sparse_feed_forward.hpp"
#include "seqi/numbers/bit_limit.hpp"

namespace seqi {
namespace {

// The tokens [begin[j], begin[j+1]) of sequence j, to and from bytes; a token equal to the one
// before it in its sequence (every token after a mean collapse) is sent as a flag alone.
void put_sequence(ByteWriter& w, const std::vector<Point>& tokens, const std::vector<std::size_t>& begin, std::size_t j) {
  for (std::size_t i = begin[j]; i < begin[j + 1]; ++i) {
    const bool repeated = i > begin[j] && equal_points(tokens[i], tokens[i - 1]);
    w.put(repeated);
    if (!repeated) w.put(tokens[i]);
  }
}
void get_sequence(ByteReader& r, std::vector<Point>& tokens, const std::vector<std::size_t>& begin, std::size_t j) {
  for (std::size_t i = begin[j]; i < begin[j + 1]; ++i) {
    const bool repeated = r.flag();
    if (repeated && i == begin[j]) throw ByteCodecError("a sequence's first token cannot repeat the one before it");
    tokens[i] = repeated ? tokens[i - 1] : r.point();
  }
}

}  // namespace

void ExactForward::expect_tokens_kept(const SelfAttention<Rational>& sa) const {
  if (one_per_sequence_ && !sa.is_identity())
    throw std::logic_error("ExactForward: an attention layer after keep_one_token_per_sequence()");
}

bool ExactForward::keep_one_token_per_sequence() {
  const std::size_t n = state_.sequences();
  std::vector<char> equal(n, 1);
  for_each_index(n, threads_, [&](std::size_t j) {
    for (std::size_t i = state_.begin[j] + 1; i < state_.begin[j + 1] && equal[j]; ++i)
      equal[j] = equal_points(state_.tokens[i], state_.tokens[state_.begin[j]]);
  });
  if (std::find(equal.begin(), equal.end(), 0) != equal.end()) return false;
  // Copies, then the whole old state freed at once: freeing every other token in place would leave
  // the allocator's regions partly used (with retain:false, one mapping per hole).
  TokenState kept;
  kept.tokens.reserve(n);
  for (std::size_t j = 0; j < n; ++j) {
    if (state_.begin[j] == state_.begin[j + 1]) throw std::logic_error("keep_one_token_per_sequence: an empty sequence");
    kept.tokens.push_back(state_.tokens[state_.begin[j]]);
    kept.begin.push_back(j + 1);
  }
  state_ = std::move(kept);
  index_.invalidate();
  one_per_sequence_ = true;
  return true;
}

ExactForward ExactForward::kept_one_per_sequence(TokenState kept, unsigned threads, const Sharding* sharding) {
  if (kept.tokens.size() != kept.sequences()) throw std::logic_error("kept_one_per_sequence: not one token per sequence");
  ExactForward pass(std::move(kept), threads, sharding);
  pass.one_per_sequence_ = true;
  return pass;
}

void ExactForward::apply_attention(const SelfAttention<Rational>& sa) {
  expect_tokens_kept(sa);
  if (sa.is_identity()) {
    ++stats_.attention_layers_skipped;
    return;
  }
  // Sequence j reads and writes only its own tokens.
  for_each_index_shared(
      state_.sequences(), {nullptr, threads_, sharding_},
      [&](std::size_t j) {
        auto first = state_.tokens.begin() + static_cast<std::ptrdiff_t>(state_.begin[j]);
        auto last = state_.tokens.begin() + static_cast<std::ptrdiff_t>(state_.begin[j + 1]);
        TokenList<Rational> X(first, last);
        X = apply_hardmax(sa, X);
        for (std::size_t i = 0; i < X.size(); ++i) check_bits(X[i], state_.begin[j] + i);
        std::move(X.begin(), X.end(), first);
      },
      [&](ByteWriter& w, std::size_t j) { put_sequence(w, state_.tokens, state_.begin, j); },
      [&](ByteReader& r, std::size_t j) { get_sequence(r, state_.tokens, state_.begin, j); });
  index_.invalidate();
}

void ExactForward::apply_attention_with_proven_argmax(const SelfAttention<Rational>& sa,
                                                      const std::vector<std::size_t>& attends) {
  expect_tokens_kept(sa);
  // V x_att once per attended token (many tokens attend to the same leader), all computed from
  // the old state before any token of the sequence is overwritten in place: no second copy of
  // the token state. A token attends within its own sequence, so sequence j touches only its
  // own slots.
  for_each_index_shared(
      state_.sequences(), {nullptr, threads_, sharding_},
      [&](std::size_t j) {
        const std::size_t b0 = state_.begin[j], b1 = state_.begin[j + 1];
        std::map<std::size_t, Point> value;
        for (std::size_t i = b0; i < b1; ++i) {
          if (attends[i] < b0 || attends[i] >= b1)
            throw std::invalid_argument("apply_attention_with_proven_argmax: a token attends outside its sequence");
          if (!value.count(attends[i])) value.emplace(attends[i], sa.V.apply(state_.tokens[attends[i]]));
        }
        for (std::size_t i = b0; i < b1; ++i) {
          const Point& v = value.at(attends[i]);
          if (sa.rho == 0)
            state_.tokens[i] = v;
          else
            state_.tokens[i] = Point(state_.tokens[i] * sa.rho + v);
          check_bits(state_.tokens[i], i);
        }
      },
      [&](ByteWriter& w, std::size_t j) { put_sequence(w, state_.tokens, state_.begin, j); },
      [&](ByteReader& r, std::size_t j) { get_sequence(r, state_.tokens, state_.begin, j); });
  index_.invalidate();
}

namespace {
std::pair<Rational, Rational> exact_reading(const Point& x, const Point& r) {
  Rational t = dot(r, x);
  return {t, t};
}
}  // namespace

// As index_readings with exact readings, the readings split among the processes.
void ExactForward::index_along(const Point& r) {
  if (index_.valid_for(r)) return;
  std::vector<Rational> t = shard_map_rational(state_.tokens.size(), {nullptr, threads_, sharding_},
                                               [&](std::size_t i) { return dot(r, state_.tokens[i]); });
  index_.reset(r, t.size());
  for (std::size_t i = 0; i < t.size(); ++i) index_.set(i, t[i], t[i]);
  ++stats_.index_rebuilds;
}

std::vector<std::size_t> ExactForward::tokens_reading_in(const Point& r, const Rational& lo, const Rational& hi) {
  index_along(r);
  std::vector<std::size_t> in = index_.meeting(lo, hi);
  std::sort(in.begin(), in.end());
  return in;
}

void ExactForward::apply_feed_forward(const FeedForward<Rational>& ff, const std::optional<OneDirectionForm>& form) {
  last_relative_window_.reset();
  if (form) index_along(form->r);  // current for form->r: apply_feed_forward_sparsely keeps it
  if (form && form->identity_outside && !state_.tokens.empty()) {
    // lem:relative-window: window half-width against the farthest reading from its centre.
    const Rational centre = (form->lo + form->hi) / 2;
    const auto [lo, hi] = index_.span();
    const Rational reach = std::max(abs(centre - lo), abs(hi - centre));
    if (reach > 0) last_relative_window_ = (form->hi - form->lo) / 2 / reach;
  }
  last_centre_margin_.reset();
  if (form && form->has_breakpoint && form->hi > form->lo && !state_.tokens.empty()) {
    const Rational half = (form->hi - form->lo) / 2, centre = (form->lo + form->hi) / 2;
    Rational margin = 2;
    for (std::size_t i : index_.meeting(centre - 2 * half, centre + 2 * half))
      if (index_.reading(i) != centre) margin = std::min(margin, Rational(abs(index_.reading(i) - centre) / half));
    last_centre_margin_ = margin;
  }
  // A layer that touches every token: its activation patterns once, then one update per token.
  std::optional<PatternImage> pattern;
  if (form && !form->identity_outside && form->slope.size() <= PatternImage::kMaxWidth) pattern.emplace(ff, *form);
  const auto step = apply_feed_forward_sparsely(
      state_.tokens, index_, form, exact_reading, [](const Point& a, const Point& b) { return equal_points(a, b); },
      [&](const Point& x, std::size_t i) -> std::optional<Point> {
        Point y = pattern ? (*pattern)(x, index_.reading(i))
                  : form  ? apply_one_direction(ff, *form, x, index_.reading(i))
                          : ff.apply(x);
        check_bits(y, i);
        return y;
      },
      threads_);
  step.sparse ? ++stats_.ff_sparse_layers : ++stats_.ff_dense_layers;
  stats_.ff_tokens_evaluated += step.touched;
  ++blocks_done_;
}

void ExactForward::check_bits(const Point& x, std::size_t i) const {
  check_bit_growth(x, [&] {
    const auto j = static_cast<std::size_t>(std::upper_bound(state_.begin.begin(), state_.begin.end(), i) -
                                            state_.begin.begin()) - 1;
    return "block " + std::to_string(blocks_done_ + 1) + ", sequence " + std::to_string(j + 1) +
           (one_per_sequence_ ? std::string(", every token") : ", token " + std::to_string(i - state_.begin[j] + 1));
  });
}

}  // namespace seqi
