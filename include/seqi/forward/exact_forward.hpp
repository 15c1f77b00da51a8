// Exact hardmax forward pass of a whole dataset through any Transformer<Rational>.
// Exactly the same result as forward_dense on every sequence, but a feed-forward layer
// that is the identity outside its breakpoints (lem:sparse-ff) touches only the tokens
// whose reading falls inside, found in a sorted index of readings.
#pragma once
#include <cstddef>
#include <optional>
#include <vector>

#include "seqi/core/sharding.hpp"
#include "seqi/forward/one_direction_ff.hpp"
#include "seqi/forward/reading_index.hpp"
#include "seqi/model/token_state.hpp"
#include "seqi/model/transformer.hpp"

namespace seqi {

struct ForwardStats {
  std::size_t ff_tokens_evaluated = 0;  // tokens on which a FF was computed
  std::size_t ff_sparse_layers = 0;     // FF layers evaluated through lem:sparse-ff
  std::size_t ff_dense_layers = 0;
  std::size_t attention_layers_skipped = 0;  // identity SA layers
  std::size_t index_rebuilds = 0;
};

// Every computed token is checked against kMaxCoordinateBits (BitLimitExceeded names the
// block, counted by feed-forward layers applied, sequence and token).
class ExactForward {
 public:
  // Attention layers run their sequences, and the reading index its tokens, on `threads`
  // threads, and across the processes of `sharding` when given (the state after each layer,
  // and any BitLimitExceeded thrown, do not depend on either).
  explicit ExactForward(TokenState initial, unsigned threads = 1, const Sharding* sharding = nullptr)
      : state_(std::move(initial)), threads_(threads), sharding_(sharding) {}

  void apply_attention(const SelfAttention<Rational>& sa);
  void apply_feed_forward(const FeedForward<Rational>& ff) { apply_feed_forward(ff, one_direction_form(ff)); }
  // The same with the layer's form already computed; precondition: form == one_direction_form(ff).
  void apply_feed_forward(const FeedForward<Rational>& ff, const std::optional<OneDirectionForm>& form);
  // Hardmax attention when every token's unique best score is already proven (lem:P):
  // SA_i = rho x_i + V x_{attends[i]}, O(n d) per sequence instead of O(n^2 d).
  void apply_attention_with_proven_argmax(const SelfAttention<Rational>& sa, const std::vector<std::size_t>& attends);
  void apply_block(const Block<Rational>& b) {
    apply_attention(b.sa);
    apply_feed_forward(b.ff);
  }

  // The tokens whose reading r.x lies in the open interval (lo, hi), ascending (the reading
  // index is made current for r; the state is unchanged).
  std::vector<std::size_t> tokens_reading_in(const Point& r, const Rational& lo, const Rational& hi);

  // When every token of each sequence equals its sequence's first (checked exactly), keeps only
  // that first token and returns true; otherwise changes nothing and returns false. A kept token
  // stands for all of its sequence's: afterwards only feed-forward layers and identity attention
  // may be applied (std::logic_error otherwise), which map equal tokens alike (lem:mean-collapse).
  bool keep_one_token_per_sequence();
  // A pass that starts where keep_one_token_per_sequence() would have left one: `kept` holds one
  // token per sequence, standing for all of its sequence's (the caller has shown them equal).
  static ExactForward kept_one_per_sequence(TokenState kept, unsigned threads = 1, const Sharding* sharding = nullptr);
  bool one_token_per_sequence() const { return one_per_sequence_; }

  const TokenState& state() const { return state_; }
  // Moves the token state out (the pass is spent: apply nothing after it).
  TokenState release_state() {
    index_.invalidate();
    return std::move(state_);
  }
  const ForwardStats& stats() const { return stats_; }
  // For the last FF layer applied, if it was the identity outside its breakpoints (lem:sparse-ff):
  // window half-width / largest distance of a token's reading from the window centre
  // (lem:relative-window, exact); nullopt otherwise.
  const std::optional<Rational>& last_relative_window() const { return last_relative_window_; }
  // For the last FF layer applied, if its rows share one direction and it has breakpoints
  // (hull [lo, hi], centre c, half-width h = (hi - lo) / 2): min |t - c| / h over the tokens
  // with reading t != c and |t - c| < 2h, or 2 when there is none (lem:hat-margin, exact).
  const std::optional<Rational>& last_centre_margin() const { return last_centre_margin_; }

 private:
  // Makes the reading index current for r (collective with sharding_ when it is not).
  void index_along(const Point& r);
  // Refuses (std::logic_error) an attention layer other than the identity once one token stands
  // for its sequence.
  void expect_tokens_kept(const SelfAttention<Rational>& sa) const;
  // Throws BitLimitExceeded when x (the new value of token i) exceeds the bit limit.
  void check_bits(const Point& x, std::size_t i) const;

  TokenState state_;
  ForwardStats stats_;
  ReadingIndex index_;  // readings of all tokens along the last sparse layer's direction
  bool one_per_sequence_ = false;  // keep_one_token_per_sequence() succeeded
  std::size_t blocks_done_ = 0;  // feed-forward layers applied (each block ends with one)
  std::optional<Rational> last_relative_window_, last_centre_margin_;
  unsigned threads_ = 1;
  const Sharding* sharding_ = nullptr;
};

}  // namespace seqi
