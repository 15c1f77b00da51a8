// The token positions after Phase S, x_i = y_i + s_j v for token i of sequence j
// (lem:separation), read without storing them: y_i is token i of the state Phase S leaves (the
// inputs, lifted by lem:distinct-means) and s_j = f . mu_j. Readings and norms of tokens that
// were not lifted come from the dataset's int64 form (TokenSequence::compact), exactly.
#pragma once
#include <cstddef>
#include <vector>

#include "seqi/core/dataset.hpp"
#include "seqi/model/token_state.hpp"

namespace seqi {

class ShiftedTokens {
 public:
  // y: the state after Phase S's lifts; lifted: some y_i differs from its input token (else y
  // is read from data). s: one value per sequence, or empty when there is no shift (s_j = 0).
  // Holds references to data and y (both must outlive it).
  ShiftedTokens(const Dataset& data, const TokenState& y, bool lifted, Point v, std::vector<Rational> s);

  std::size_t size() const { return y_.tokens.size(); }
  // The sequences' token ranges (TokenState::begin).
  const TokenState& layout() const { return y_; }
  // x_i, exactly.
  Point token(std::size_t i) const;
  // r . x_i for every token i, in token order, on `threads` threads (the result does not depend on it).
  std::vector<Rational> readings(const Point& r, unsigned threads = 1) const;
  // max_i |x_i|^2 (0 without tokens), on `threads` threads.
  Rational max_norm_sq(unsigned threads = 1) const;

 private:
  Rational shift_of(std::size_t j) const { return s_.empty() ? Rational(0) : s_[j]; }

  const Dataset& data_;
  const TokenState& y_;
  bool lifted_;
  Point v_;
  std::vector<Rational> s_;
  std::vector<std::size_t> owner_;
};

}  // namespace seqi
