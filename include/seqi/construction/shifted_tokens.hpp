// The token positions after Phase S, x_i = y_i + s_j v for token i of sequence j
// (lem:separation), read without storing them: y_i is token i of the state Phase S's lifts
// leave (LiftedInputs: the inputs, lifted by lem:distinct-means) and s_j = f . mu_j.
#pragma once
#include <cstddef>
#include <vector>

#include "seqi/construction/lifted_inputs.hpp"

namespace seqi {

class ShiftedTokens {
 public:
  // s: one value per sequence, or empty when there is no shift (s_j = 0). Holds a reference to
  // y (which must outlive it).
  ShiftedTokens(const LiftedInputs& y, Point v, std::vector<Rational> s);

  std::size_t size() const { return y_.size(); }
  // The sequences' token ranges (TokenState::begin; no tokens).
  const TokenState& layout() const { return y_.layout(); }
  // x_i, exactly.
  Point token(std::size_t i) const;
  // r . x_i for every token i, in token order, on `threads` threads (the result does not depend on it).
  std::vector<Rational> readings(const Point& r, unsigned threads = 1) const;
  // max_i |x_i|^2 (0 without tokens), on `threads` threads.
  Rational max_norm_sq(unsigned threads = 1) const;

 private:
  Rational shift_of(std::size_t j) const { return s_.empty() ? Rational(0) : s_[j]; }

  const LiftedInputs& y_;
  Point v_;
  std::vector<Rational> s_;
};

}  // namespace seqi
