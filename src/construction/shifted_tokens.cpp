#include "seqi/construction/shifted_tokens.hpp"

#include <algorithm>
#include <optional>
#include <utility>

#include "seqi/core/chunks.hpp"

namespace seqi {


ShiftedTokens::ShiftedTokens(const Dataset& data, const TokenState& y, bool lifted, Point v, std::vector<Rational> s)
    : data_(data), y_(y), lifted_(lifted), v_(std::move(v)), s_(std::move(s)), owner_(y.owners()) {}

Point ShiftedTokens::token(std::size_t i) const {
  const Rational s = shift_of(owner_[i]);
  return s.is_zero() ? y_.tokens[i] : Point(y_.tokens[i] + v_ * s);
}

std::vector<Rational> ShiftedTokens::readings(const Point& r, unsigned threads) const {
  const Rational rv = s_.empty() ? Rational(0) : dot(r, v_);
  const auto integer_r = lifted_ ? std::nullopt : integer_numerators(r);
  std::vector<Rational> t(size());
  for_each_chunk(size(), threads, [&](std::size_t, std::size_t first, std::size_t last) {
    for (std::size_t i = first; i < last; ++i) {
      const std::size_t j = owner_[i];
      if (integer_r && data_.pairs[j].input.integer_dot(i - y_.begin[j], integer_r->first, t[i]))
        t[i] /= integer_r->second;  // r . y_i from the dataset's integers
      else
        t[i] = dot(r, y_.tokens[i]);
      if (!rv.is_zero()) t[i] += s_[j] * rv;
    }
  });
  return t;
}

Rational ShiftedTokens::max_norm_sq(unsigned threads) const {
  // |y + s v|^2 = |y|^2 + s (2 v . y + s |v|^2).
  const Rational vv = norm_sq(v_);
  const auto integer_v = lifted_ || s_.empty() ? std::nullopt : integer_numerators(v_);
  std::vector<Rational> most(chunk_count(size(), threads));
  for_each_chunk(size(), threads, [&](std::size_t c, std::size_t first, std::size_t last) {
    Rational n2, vy;
    for (std::size_t i = first; i < last; ++i) {
      const std::size_t j = owner_[i];
      const TokenSequence& in = data_.pairs[j].input;
      const std::size_t local = i - y_.begin[j];
      const Rational s = shift_of(j);
      if (lifted_ || !in.norm_sq(local, n2)) n2 = norm_sq(y_.tokens[i]);
      if (!s.is_zero()) {
        if (integer_v && in.integer_dot(local, integer_v->first, vy))
          vy /= integer_v->second;
        else
          vy = dot(v_, y_.tokens[i]);
        n2 += s * (2 * vy + s * vv);
      }
      if (n2 > most[c]) most[c] = n2;
    }
  });
  return most.empty() ? Rational(0) : *std::max_element(most.begin(), most.end());
}

}  // namespace seqi
