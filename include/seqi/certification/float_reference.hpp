// The exact run a float run is compared with (lem:float-run): per token, a set that contains
// the exact value. Hardmax: the exact rational point (ExactForward). Softmax: a point or a
// segment p + c w, c in [lo, hi] (CarriedForward, lem:direction-carrying).
#pragma once
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "seqi/certification/collapse_enclosures.hpp"
#include "seqi/forward/one_direction_ff.hpp"
#include "seqi/model/token_state.hpp"
#include "seqi/model/transformer.hpp"

namespace seqi {

class ExactReference {
 public:
  virtual ~ExactReference() = default;
  virtual std::size_t size() const = 0;
  // Midpoint (d doubles into mid) and a radius rad with |x*_c - mid_c| <= rad for every
  // coordinate c and every x* in token i's set. Requires UpwardRounding.
  virtual void box(std::size_t i, double* mid, double& rad) const = 0;
  // The exact range [lo, hi] of u.x + b over token i's set.
  virtual std::pair<Rational, Rational> affine_range(std::size_t i, const Point& u, const Rational& b) const = 0;
  // The tokens whose set has a point with reading r.x in the open interval (lo, hi), ascending;
  // every other token's set reads <= lo or >= hi throughout.
  virtual std::vector<std::size_t> tokens_reading_in(const Point& r, const Rational& lo, const Rational& hi) = 0;
  // Token i's exact point (nullptr when it is a segment).
  virtual const Point* point(std::size_t i) const = 0;
  // Advance through one layer; an explanation when the exact run cannot be followed.
  virtual std::optional<std::string> attention(const SelfAttention<Rational>& sa) = 0;
  // A hardmax attention layer whose every token i has the unique exact argmax attends[i]
  // (global index, already shown); the default ignores it.
  virtual std::optional<std::string> attention(const SelfAttention<Rational>& sa,
                                               const std::vector<std::size_t>& /*attends*/) {
    return attention(sa);
  }
  virtual std::optional<std::string> feed_forward(const FeedForward<Rational>& ff) = 0;
  // Called before the layers of block b (0-based), in order; the default ignores it.
  virtual void begin_block(std::size_t /*b*/) {}
  // The same with one_direction_form(ff) already computed (precondition); the default ignores it.
  virtual std::optional<std::string> feed_forward(const FeedForward<Rational>& ff,
                                                  const std::optional<OneDirectionForm>& /*form*/) {
    return feed_forward(ff);
  }
};

std::unique_ptr<ExactReference> hardmax_reference(TokenState inputs, unsigned threads);
// Softmax: exact points (ExactForward) while every attention layer is exact (lem:mean-shift),
// carried tokens from the first other one on; the attention layer of collapse->block, when
// given, is enclosed by that plan (lem:softmax-enclosure).
std::unique_ptr<ExactReference> softmax_reference(TokenState inputs, const Rational& tau, unsigned precision,
                                                  unsigned threads, const CollapseEnclosures* collapse);

}  // namespace seqi
