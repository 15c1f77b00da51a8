#include "seqi/construction/shifted_tokens.hpp"

#include <algorithm>
#include <optional>
#include <utility>

#include "seqi/core/chunks.hpp"

namespace seqi {

ShiftedTokens::ShiftedTokens(const LiftedInputs& y, Point v, std::vector<Rational> s)
    : y_(y), v_(std::move(v)), s_(std::move(s)) {}

Point ShiftedTokens::token(std::size_t i) const {
  const Rational s = shift_of(y_.owners()[i]);
  return s.is_zero() ? y_.token(i) : Point(y_.token(i) + v_ * s);
}

std::vector<Rational> ShiftedTokens::readings(const Point& r, unsigned threads) const {
  std::vector<Rational> t = y_.readings(r, threads);
  if (s_.empty()) return t;
  const Rational rv = dot(r, v_);
  if (rv.is_zero()) return t;
  for_each_chunk(size(), threads, [&](std::size_t, std::size_t first, std::size_t last) {
    for (std::size_t i = first; i < last; ++i) t[i] += s_[y_.owners()[i]] * rv;
  });
  return t;
}

Rational ShiftedTokens::max_norm_sq(unsigned threads) const {
  // |y + s v|^2 = |y|^2 + s (2 v . y + s |v|^2).
  const Rational vv = norm_sq(v_);
  const IntegerNumerators integer_v = s_.empty() ? std::nullopt : integer_numerators(v_);
  std::vector<Rational> most(chunk_count(size(), threads));
  for_each_chunk(size(), threads, [&](std::size_t c, std::size_t first, std::size_t last) {
    for (std::size_t i = first; i < last; ++i) {
      const Rational s = shift_of(y_.owners()[i]);
      Rational n2 = y_.norm_sq(i);
      if (!s.is_zero()) n2 += s * (2 * y_.reading(i, v_, integer_v) + s * vv);
      if (n2 > most[c]) most[c] = n2;
    }
  });
  return most.empty() ? Rational(0) : *std::max_element(most.begin(), most.end());
}

}  // namespace seqi
