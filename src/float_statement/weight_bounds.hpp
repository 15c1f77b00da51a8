// Internal to the float statements (lem:float-run, proofs/float-run.tex): the bounds that depend
// on the weights alone. The range of lem:float-run (a weight rounds with relative error u), the
// magnitudes of a structured matrix (lem:float-structured) and of a feed-forward layer
// (lem:float-ff), prepared ahead per layer, and the Jacobian norms of its activation patterns.
// Defined in weight_bounds.cpp.
#pragma once
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "seqi/float_statement/float_format.hpp"
#include "seqi/float_statement/float_reading.hpp"
#include "seqi/forward/one_direction_ff.hpp"
#include "seqi/model/transformer.hpp"
#include "seqi/numbers/upward.hpp"

namespace seqi::float_run_detail {

// Every magnitude bound of format f stays below this: no overflow anywhere (float_format.hpp).
inline double guard(const FloatFormat& f) { return std::ldexp(1.0, f.range); }
// "2^range", as failures name the guard.
inline std::string guard_text(const FloatFormat& f) { return "2^" + std::to_string(f.range); }

// gamma'_n = gamma_n (1 + u) + u of lem:float-dot; +infinity when n u > 1/4 (no bound then: every
// check against the guard fails). Requires UpwardRounding.
double dot_rounding(std::size_t n, const FloatFormat& f);
// gamma_n itself, with the same convention.
double gamma_of(std::size_t n, const FloatFormat& f);

// w = 0 or 2^-range <= |w| <= 2^range (normal range: |fl(w) - w| <= u |w|).
bool in_relative_range(const Rational& w, const FloatFormat& f);

// nullopt when in_relative_range(w, f), else an explanation naming `what`.
template <class What>
std::optional<std::string> out_of_range(const Rational& w, What what, const FloatFormat& f) {
  if (in_relative_range(w, f)) return std::nullopt;
  return std::string(what) + " = " + approx_decimal(w) + " is outside [2^-" + std::to_string(f.range) + ", " +
         guard_text(f) + "]: its " + f.name + " rounding is not relative";
}

// Magnitudes of alpha I + sum_t p_t q_t^T (lem:float-structured).
struct StructuredBound {
  bool zero = true;
  double alpha = 0;
  std::vector<double> p_inf, q_one, p_one;  // |p_t|_inf, |q_t|_1, |p_t|_1 (upper bounds)
};

struct Applied {
  double mag = 0;  // >= |M x*|_inf
  double err = 0;  // >= |fl(Mhat xhat) - M x*|_inf
};

StructuredBound structured_bound(const StructuredMatrix<Rational>& m);
std::optional<std::string> structured_range(const StructuredMatrix<Rational>& m, const std::string& what,
                                            const FloatFormat& f);
// x: bound on |xhat|_inf and |x*|_inf; ex: bound on |xhat - x*|_inf; d: dimension.
Applied apply_bound(const StructuredBound& s, double x, double ex, std::size_t d, const FloatFormat& f);

// Per-layer magnitudes of a feed-forward layer (lem:float-ff).
struct FFBound {
  std::size_t w = 0, d = 0;
  // 1 + the most nonzero entries of a row of U: the summands of a pre-activation (lem:float-dot,
  // a zero weight's product is an exact zero); at most d + 1.
  std::size_t terms = 1;
  std::vector<double> u_mid, u_mag, u_one, b_mid, b_mag, w_col;
  std::vector<char> zero_row;  // U_k = 0 exactly
  double eta = 0;
  bool eta_one = false;
};

FFBound ff_bound(const FeedForward<Rational>& ff);
std::optional<std::string> ff_range(const FeedForward<Rational>& ff, const FloatFormat& f);

// What the bound needs of a feed-forward layer that depends on the layer alone; prepared ahead
// for a batch of layers on the threads (LayerPreps). Requires UpwardRounding.
struct LayerPrep {
  // per format (in the order of LayerPreps' formats): a weight outside its range of lem:float-run
  std::vector<std::optional<std::string>> out_of_range;
  FFBound f;
  std::optional<OneDirectionForm> one;  // one_direction_form(ff)
  // reading_layer(ff, *one, one->r) when one->identity_outside: a sparse layer's reading bounds
  // (its direction is then the current one, lem:float-run-sparse)
  std::optional<ReadingLayer> sparse_reading;
};

LayerPrep prepare_layer(const FeedForward<Rational>& ff, const std::vector<FloatFormat>& formats);

// LayerPrep of the blocks of a model, in batches computed on `threads` threads as the run
// reaches them (a batch at a time: memory O(batch), not O(blocks)). After forms_only(), later
// batches hold only `one`: what the exact run still needs once the bound has stopped.
class LayerPreps {
 public:
  LayerPreps(const Transformer<Rational>& model, unsigned threads, std::vector<FloatFormat> formats)
      : model_(model), threads_(threads), formats_(std::move(formats)) {}
  const LayerPrep& at(std::size_t b) {
    if (b < first_ || b >= first_ + preps_.size()) fill_from(b);
    return preps_[b - first_];
  }
  void forms_only() { forms_only_ = true; }

 private:
  void fill_from(std::size_t b);
  static constexpr std::size_t kBatch = 256;
  const Transformer<Rational>& model_;
  unsigned threads_;
  std::vector<FloatFormat> formats_;
  bool forms_only_ = false;
  std::size_t first_ = 0;
  std::vector<LayerPrep> preps_;
};

// Per activation pattern P (exact, then rounded up): jacobian >= |eta I + sum_{k in P} W_k U_k|_inf
// (lem:float-ff); for a one-direction layer U_k = slope_k r^T also w_inf >= |w_P|_inf and
// gain >= |eta + r.w_P| with w_P = sum_{k in P} slope_k W_k (lem:float-reading).
struct PatternBound {
  double jacobian = 0, w_inf = 0, gain = 0;
};

// PatternBound per pattern, cached. One direction: O(w d) exact operations per pattern.
class PatternNorms {
 public:
  // form: one_direction_form(ff), computed once per layer (LayerPrep).
  PatternNorms(const FeedForward<Rational>& ff, const std::optional<OneDirectionForm>& form) : ff_(ff), form_(form) {
    if (form_)
      for (Eigen::Index c = 0; c < form_->r.size(); ++c) r_one_ += abs(form_->r[c]);
  }
  // Requires UpwardRounding.
  PatternBound operator()(const std::vector<char>& active);

 private:
  const FeedForward<Rational>& ff_;
  const std::optional<OneDirectionForm>& form_;
  Rational r_one_ = 0;
  std::map<std::uint64_t, PatternBound> cache_;
};

}  // namespace seqi::float_run_detail
