#include "seqi/construction/lifted_inputs.hpp"

#include <atomic>

#include "seqi/core/chunks.hpp"
#include "seqi/core/parallel.hpp"
#include "seqi/numbers/residue.hpp"

namespace seqi {

LiftedInputs::LiftedInputs(const Dataset& data, unsigned threads) : data_(data) {
  for (const auto& pair : data.pairs) layout_.begin.push_back(layout_.begin.back() + pair.input.size());
  owner_ = layout_.owners();
  weights_ = residue_weights(static_cast<std::size_t>(data.dimension));
  std::vector<std::uint64_t> key(size());
  std::atomic<bool> hashed{true};
  for_each_index(sequences(), threads, [&](std::size_t j) {  // sequence j writes only its own slots
    const TokenSequence& in = data.pairs[j].input;
    std::uint64_t* out = key.data() + layout_.begin[j];
    if (!hashed.load(std::memory_order_relaxed) || in.weighted_residues(weights_, out)) return;
    for (std::size_t i = 0; i < in.size(); ++i) {
      const auto h = weighted_residue(weights_, in[i]);
      if (!h) hashed = false;
      else out[i] = *h;
    }
  });
  if (hashed) residue_ = std::move(key);
}

Point LiftedInputs::token(std::size_t i) const {
  if (const auto it = moved_.find(i); it != moved_.end()) return it->second;
  const std::size_t j = owner_[i];
  return data_.pairs[j].input[i - layout_.begin[j]];
}

std::vector<Point> LiftedInputs::tokens_of(std::size_t j) const {
  std::vector<Point> x;
  for (std::size_t i = layout_.begin[j]; i < layout_.begin[j + 1]; ++i) x.push_back(token(i));
  return x;
}

std::vector<Point> LiftedInputs::means(unsigned threads) const {
  std::vector<Point> mu(sequences());
  for_each_index(sequences(), threads, [&](std::size_t j) {
    const auto first = moved_.lower_bound(layout_.begin[j]);
    const bool untouched = first == moved_.end() || first->first >= layout_.begin[j + 1];
    if (untouched && data_.pairs[j].input.mean(mu[j])) return;
    Point s = Point::Zero(data_.dimension);  // in place, zero terms skipped
    for (std::size_t i = layout_.begin[j]; i < layout_.begin[j + 1]; ++i) {
      const Point x = token(i);
      for (Eigen::Index k = 0; k < s.size(); ++k)
        if (!x[k].is_zero()) s[k] += x[k];
    }
    const Rational n(static_cast<long>(layout_.size_of(j)));
    for (Eigen::Index k = 0; k < s.size(); ++k)
      if (!s[k].is_zero()) s[k] /= n;
    mu[j] = std::move(s);
  });
  return mu;
}

std::vector<std::size_t> LiftedInputs::indices_of(const Point& p) const {
  std::vector<std::size_t> found;
  std::optional<std::uint64_t> key;
  if (residue_) {
    key = weighted_residue(weights_, p);
    if (!key) return found;  // every token has a residue, p has none: no token equals p
  }
  for (std::size_t i = 0; i < size(); ++i)
    if ((!key || (*residue_)[i] == *key) && equal_points(token(i), p)) found.push_back(i);
  return found;
}

Rational LiftedInputs::reading(std::size_t i, const Point& r, const IntegerNumerators& integer_r) const {
  const std::size_t j = owner_[i];
  Rational t;
  if (integer_r && !moved_.count(i) &&
      data_.pairs[j].input.integer_dot(i - layout_.begin[j], integer_r->first, t)) {
    t /= integer_r->second;
    return t;
  }
  return dot(r, token(i));
}

std::vector<Rational> LiftedInputs::readings(const Point& r, unsigned threads) const {
  const IntegerNumerators integer_r = integer_numerators(r);
  std::vector<Rational> t(size());
  for_each_chunk(size(), threads, [&](std::size_t, std::size_t first, std::size_t last) {
    for (std::size_t i = first; i < last; ++i) t[i] = reading(i, r, integer_r);
  });
  return t;
}

Rational LiftedInputs::norm_sq(std::size_t i) const {
  const std::size_t j = owner_[i];
  Rational n2;
  if (!moved_.count(i) && data_.pairs[j].input.norm_sq(i - layout_.begin[j], n2)) return n2;
  return seqi::norm_sq(token(i));
}

void LiftedInputs::move(std::size_t i, Point x) {
  if (residue_) {
    const auto h = weighted_residue(weights_, x);
    if (h) (*residue_)[i] = *h;
    else residue_.reset();
  }
  moved_[i] = std::move(x);
}

}  // namespace seqi
