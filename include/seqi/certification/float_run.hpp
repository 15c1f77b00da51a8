// lem:float-run: a rigorous statement about a float64 run of the model's weights rounded to
// nearest double (proofs/float-run.tex). Assuming IEEE binary64, each operation correctly
// rounded to nearest, dot products summed in any order and exp within 2 ulp, the engine
// proves by running-error analysis (upper bounds evaluated in upward rounding) that every
// decision of the float run (each hardmax argmax, each ReLU sign whose exact pre-activation
// is nonzero) equals the exact one and that every output lies within delta (per coordinate)
// of the exact output; or it names the block, layer, sequence and token where it cannot.
// A claim separate from the exact certificate: it never changes `verified`.
#pragma once
#include <cstddef>
#include <optional>
#include <string>

#include "seqi/certification/collapse_enclosures.hpp"
#include "seqi/core/dataset.hpp"
#include "seqi/model/setting.hpp"
#include "seqi/model/transformer.hpp"

namespace seqi {

struct FloatRunFacts {
  bool certified = false;      // every decision shown equal, every output within delta
  double delta = 0;            // upper bound on |float - exact| per output coordinate (when certified)
  double relative_delta = 0;   // delta / max |exact output coordinate| (when certified; delta if that is 0)
  std::string failure;         // when !certified: "block b (feed-forward), sequence j, token i: ..."
  std::size_t decisions = 0;   // ReLU signs and argmaxes shown equal
  std::size_t kinks = 0;       // ReLUs with exact pre-activation 0 (value bound by continuity only)
  // Feed-forward (layer, token) pairs bounded one by one (lem:float-ff) and those covered by a
  // layer's charge instead (lem:float-run-sparse); their sum is layers x tokens.
  std::size_t tokens_bounded = 0, tokens_charged = 0;
};

// The float run of `model` on every input of `data`, against the exact run of the same model:
// hardmax in exact rationals, softmax at temperature tau (enclosed with `precision`-bit
// intervals on exact directions, lem:direction-carrying). threads: tokens of a feed-forward
// layer (and the hardmax reference's attention) run in parallel; the result does not depend on it.
// collapse (softmax only, optional): the reference encloses that block's attention layer with
// this plan (lem:softmax-enclosure) instead of token by token from the softmax weights.
FloatRunFacts bound_float_run(const Transformer<Rational>& model, const Dataset& data, Setting kind,
                              const Rational& tau, unsigned precision, unsigned threads = 1,
                              const CollapseEnclosures* collapse = nullptr);

}  // namespace seqi
