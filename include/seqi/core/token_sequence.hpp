// The tokens of one input sequence, stored compactly (compact memory).
// Compact form: int64 numerators over ONE common positive denominator for the whole sequence
// (the lcm of the coordinates' reduced denominators), stored in the narrowest integer type that
// holds them all (core/narrow_ints: 2, 4 or 8 bytes per coordinate). When a value
// does not fit (a numerator, the lcm or a rescaled numerator beyond +-(2^63 - 1)) or the tokens
// have different dimensions, the sequence falls back to exact GMP Points. Either way, invariant:
// (*this)[i] equals, exactly, the i-th Point pushed.
#pragma once
#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <iterator>
#include <optional>
#include <utility>
#include <vector>

#include "seqi/core/narrow_ints.hpp"
#include "seqi/numbers/rational.hpp"

namespace seqi {

class TokenSequence {
 public:
  // Const iteration yields the tokens as Points by value (each decoded on access).
  class const_iterator {
   public:
    using iterator_category = std::input_iterator_tag;
    using value_type = Point;
    using difference_type = std::ptrdiff_t;
    using pointer = void;
    using reference = const Point;
    const_iterator() = default;
    const_iterator(const TokenSequence* s, std::size_t i) : s_(s), i_(i) {}
    const Point operator*() const { return (*s_)[i_]; }
    const_iterator& operator++() {
      ++i_;
      return *this;
    }
    const_iterator operator++(int) {
      const_iterator old = *this;
      ++i_;
      return old;
    }
    bool operator==(const const_iterator& o) const { return i_ == o.i_; }

   private:
    const TokenSequence* s_ = nullptr;
    std::size_t i_ = 0;
  };

  TokenSequence() = default;
  TokenSequence(std::initializer_list<Point> points);
  explicit TokenSequence(const std::vector<Point>& points);

  std::size_t size() const { return n_; }
  bool empty() const { return n_ == 0; }
  // Token i (i < size()), exactly as pushed: a decoded copy, const so that a write through it
  // (s[i][c] = v, which would change nothing) does not compile.
  const Point operator[](std::size_t i) const;
  // The number of coordinates of token i, without decoding it.
  Eigen::Index dimension(std::size_t i) const { return fallback_ ? big_[i].size() : d_; }
  void push_back(const Point& x);
  // Releases spare capacity (call once a sequence is complete).
  void shrink_to_fit();
  // All tokens of this one sequence, in order.
  std::vector<Point> points() const;
  // The tokens are held as int64 numerators over one denominator (not the GMP fallback).
  bool compact() const { return !fallback_; }
  // Bytes per stored numerator of the compact form (2, 4 or 8).
  std::size_t numerator_width() const { return num_.width(); }
  // r . token i exactly, for integers r[0..d): false (out unchanged) when the sequence is not
  // compact, r.size() != d, or a partial sum leaves 127 bits; then decode the token instead.
  bool integer_dot(std::size_t i, const std::vector<std::int64_t>& r, Rational& out) const;
  // |token i|^2 exactly; false (out unchanged) as for integer_dot.
  bool norm_sq(std::size_t i, Rational& out) const;
  // weighted_residue(w, token i) (numbers/residue.hpp) into out[i] for every token, from the
  // int64 numerators; false (out unchanged) when the sequence is not compact, w.size() != d or
  // p divides the common denominator: then take the residues of the decoded tokens instead.
  bool weighted_residues(const std::vector<std::uint64_t>& w, std::uint64_t* out) const;
  // The mean of the tokens exactly, summed on the int64 numerators; false (out unchanged) when
  // the sequence is empty or not compact: then sum the decoded tokens instead.
  bool mean(Point& out) const;
  const_iterator begin() const { return {this, 0}; }
  const_iterator end() const { return {this, n_}; }

  // Three-way lexicographic comparison of token a[i] with token b[j] (-1, 0, 1), exact.
  // Tokens of different dimensions order by dimension first.
  friend int compare_tokens(const TokenSequence& a, std::size_t i, const TokenSequence& b, std::size_t j);

 private:
  void to_fallback();
  bool push_compact(const Point& x);

  bool fallback_ = false;          // tokens in big_, num_ unused
  Eigen::Index d_ = 0;             // dimension of the compact tokens
  std::size_t n_ = 0;              // number of tokens
  std::int64_t den_ = 1;           // common denominator > 0 (compact form)
  NarrowInts num_;                 // d_ numerators per token (compact form)
  std::vector<Point> big_;         // the tokens (fallback form)
};

int compare_tokens(const TokenSequence& a, std::size_t i, const TokenSequence& b, std::size_t j);

// r = num / den with int64 numerators over one denominator den > 0 (the lcm of r's reduced
// denominators), the form integer_dot reads; nullopt when a value leaves int64.
using IntegerNumerators = std::optional<std::pair<std::vector<std::int64_t>, Integer>>;
IntegerNumerators integer_numerators(const Point& r);

}  // namespace seqi
