// The tokens as Phase S's lifts leave them (lem:distinct-means): every token as in the dataset
// but those a lift moved, held apart. Tokens are decoded on access from the dataset's compact
// form, so the state costs the moved tokens, one residue and one owner per token, not an exact
// point per token (about 48 bytes per coordinate at scale).
#pragma once
#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <vector>

#include "seqi/core/dataset.hpp"
#include "seqi/model/token_state.hpp"

namespace seqi {

class LiftedInputs {
 public:
  // The dataset's inputs, none moved; residues on `threads` threads. data must outlive the object.
  explicit LiftedInputs(const Dataset& data, unsigned threads = 1);

  std::size_t size() const { return owner_.size(); }
  std::size_t sequences() const { return layout_.sequences(); }
  // The sequences' token ranges (begin only; no tokens held).
  const TokenState& layout() const { return layout_; }
  const std::vector<std::size_t>& owners() const { return owner_; }

  // Token i, exactly.
  Point token(std::size_t i) const;
  // The tokens of sequence j, in order.
  std::vector<Point> tokens_of(std::size_t j) const;
  // The exact mean of every sequence's tokens, on `threads` threads.
  std::vector<Point> means(unsigned threads = 1) const;
  // weighted_residue(residue_weights(d), token i) for every token; nullopt when p divides a
  // denominator of some token (then compare exactly).
  const std::optional<std::vector<std::uint64_t>>& residues() const { return residue_; }
  // The tokens equal to p, ascending.
  std::vector<std::size_t> indices_of(const Point& p) const;

  // r . token i exactly; integer_r: integer_numerators(r), read from the dataset's integers.
  Rational reading(std::size_t i, const Point& r, const IntegerNumerators& integer_r) const;
  // r . token i for every token, on `threads` threads (the result does not depend on it).
  std::vector<Rational> readings(const Point& r, unsigned threads = 1) const;
  // |token i|^2 exactly.
  Rational norm_sq(std::size_t i) const;

  // Token i becomes x.
  void move(std::size_t i, Point x);

 private:
  const Dataset& data_;
  TokenState layout_;
  std::vector<std::size_t> owner_;
  std::map<std::size_t, Point> moved_;
  std::vector<std::uint64_t> weights_;
  std::optional<std::vector<std::uint64_t>> residue_;
};

}  // namespace seqi
