// The exact run a float run is compared with (lem:float-run): per token, a set that contains
// the exact value. Hardmax: the exact rational point (ExactForward). Softmax: a point or a
// segment p + c w, c in [lo, hi] (CarriedForward, lem:direction-carrying).
#pragma once
#include <cstddef>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "seqi/forward/carried_forward.hpp"
#include "seqi/forward/exact_forward.hpp"
#include "seqi/forward/one_direction_ff.hpp"

namespace seqi {

// A view of the tokens of an exact run that its owner advances (the certification's own pass,
// or a run of the bound's own): an ExactForward or a CarriedForward, switched by follow().
class ExactReference {
 public:
  explicit ExactReference(ExactForward& pass) { follow(pass); }
  void follow(ExactForward& pass) { exact_ = &pass, carried_ = nullptr; }
  void follow(CarriedForward& pass) { exact_ = nullptr, carried_ = &pass; }

  std::size_t size() const;
  // Midpoint (d doubles into mid) and a radius rad with |x*_c - mid_c| <= rad for every
  // coordinate c and every x* in token i's set. Requires UpwardRounding.
  void box(std::size_t i, double* mid, double& rad) const;
  // The exact range [lo, hi] of u.x + b over token i's set.
  std::pair<Rational, Rational> affine_range(std::size_t i, const Point& u, const Rational& b) const;
  // The tokens whose set has a point with reading r.x in the open interval (lo, hi), ascending;
  // every other token's set reads <= lo or >= hi throughout.
  std::vector<std::size_t> tokens_reading_in(const Point& r, const Rational& lo, const Rational& hi);
  // Token i's exact point (nullptr when it is a segment).
  const Point* point(std::size_t i) const;

 private:
  ExactForward* exact_ = nullptr;
  CarriedForward* carried_ = nullptr;
};

// The softmax run that a standalone bound follows: exact points (ExactForward) while every
// attention layer is exact (lem:mean-shift), carried tokens from the first other one on,
// enclosed token by token from the softmax weights (lem:direction-carrying).
class SoftmaxRun {
 public:
  SoftmaxRun(TokenState inputs, const Rational& tau, unsigned precision, unsigned threads);
  ExactReference& view() { return view_; }
  // An explanation when the run cannot be followed through the layer.
  std::optional<std::string> attention(const SelfAttention<Rational>& sa);
  // Precondition: form == one_direction_form(ff).
  std::optional<std::string> feed_forward(const FeedForward<Rational>& ff, const std::optional<OneDirectionForm>& form);

 private:
  std::optional<ExactForward> exact_;      // until the first attention layer that is not exact
  std::optional<CarriedForward> carried_;  // from then on
  ExactReference view_;
  Rational tau_;
  unsigned precision_, threads_;
};

}  // namespace seqi
