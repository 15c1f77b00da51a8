// Softmax forward pass of a whole dataset on carried tokens (lem:direction-carrying):
// attention layers are exact when A = 0 (lem:mean-shift) or the identity; an attention layer
// with V = p q^T on exact inputs yields enclosures c in [lo, hi] on the exact direction p;
// feed-forward layers map carried tokens exactly (failing where a ReLU straddles 0).
// Layers run on `threads` threads; tokens, failures and exceptions are those of one thread.
#pragma once
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "seqi/forward/carried_token.hpp"
#include "seqi/forward/reading_index.hpp"
#include "seqi/model/token_state.hpp"
#include "seqi/model/transformer.hpp"

namespace seqi {

class CarriedForward {
 public:
  // Takes the exact token state over (no second copy of it).
  CarriedForward(TokenState exact, unsigned precision, unsigned threads = 1);

  // Each returns an explanation naming sequence and token when the enclosure cannot be
  // carried through the layer (the first such token in token order); nullopt on success.
  // After a failure the tokens are unspecified: apply nothing more.
  std::optional<std::string> apply_attention(const SelfAttention<Rational>& sa, const Rational& tau);
  std::optional<std::string> apply_feed_forward(const FeedForward<Rational>& ff);
  // The attention layer on sequence j only.
  std::optional<std::string> apply_attention_to(const SelfAttention<Rational>& sa, const Rational& tau, std::size_t j);
  // The tokens whose reading interval along r meets the open interval (lo, hi), ascending
  // (the reading index is made current for r; the tokens are unchanged).
  std::vector<std::size_t> tokens_reading_in(const Point& r, const Rational& lo, const Rational& hi);
  // Exact token i, p, becomes the enclosure rho p + c w, c in [lo, hi], in place (e.g. from the
  // Lemma P bound). Not thread-safe.
  void enclose_token(std::size_t i, const Rational& rho, std::shared_ptr<const Point> w, Rational lo, Rational hi);
  // Moves the tokens out as exact points when every token is exact (the pass is spent);
  // otherwise the index of the first enclosure, and the pass is unchanged.
  std::variant<TokenState, std::size_t> release_points();

  const std::vector<CarriedToken>& tokens() const { return tokens_; }
  const std::vector<std::size_t>& begin() const { return begin_; }
  std::string where(std::size_t token) const;  // "sequence j, token i" (1-based)

 private:
  // Throws BitLimitExceeded, naming where(i), when a part of t exceeds kMaxCoordinateBits.
  void check_bits(const CarriedToken& t, std::size_t i) const;
  // The layer on sequence j, writing only its own tokens (safe on threads).
  std::optional<std::string> attend(const SelfAttention<Rational>& sa, const Rational& tau, std::size_t j);

  std::vector<CarriedToken> tokens_;
  std::vector<std::size_t> begin_;
  unsigned precision_, threads_;
  ReadingIndex index_;
};

}  // namespace seqi
