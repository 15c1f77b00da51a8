// lem:float-run: a rigorous statement about a float run of the model's weights rounded to
// nearest (proofs/float-run.tex), in IEEE binary64 or binary32 (float_format.hpp). Assuming each
// operation correctly rounded to nearest, dot products summed in any order and exp within 2 ulp, the engine
// proves by running-error analysis (upper bounds evaluated in upward rounding) that every
// decision of the float run (each hardmax argmax, each ReLU sign whose exact pre-activation
// is nonzero) equals the exact one and that every output lies within delta (per coordinate)
// of the exact output; or it names the block, layer, sequence and token where it cannot.
// A claim separate from the exact certificate: it never changes `verified`.
#pragma once
#include <cstddef>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "seqi/core/dataset.hpp"
#include "seqi/core/execution.hpp"
#include "seqi/float_statement/float_format.hpp"
#include "seqi/float_statement/float_run_facts.hpp"
#include "seqi/forward/one_direction_ff.hpp"
#include "seqi/model/setting.hpp"
#include "seqi/model/transformer.hpp"

namespace seqi {

class ExactReference;

// lem:float-run block by block, beside an exact run that the caller advances (the
// certification's own pass: no second exact run). ref views the exact run's tokens, entering
// block 0 at construction; it is read between layers and must outlive the bound.
class FloatRunBound {
 public:
  // argmax: every token's proven unique exact argmax (global index) in a hardmax attention layer
  // with A, V != 0, else empty; the callee may use it or its own. Returns an explanation when the
  // exact run cannot be followed through the layer.
  using AdvanceAttention = std::function<std::optional<std::string>(const std::vector<std::size_t>& argmax)>;
  // form: one_direction_form(ff).
  using AdvanceFeedForward = std::function<std::optional<std::string>(const std::optional<OneDirectionForm>& form)>;

  // tau: softmax only; it may instead be given by set_tau(). formats: the float runs bounded, each
  // on its own (one failing does not stop the others), beside the one exact run.
  FloatRunBound(const Transformer<Rational>& model, ExactReference& ref, const std::vector<std::size_t>& begin, Setting kind,
                const std::optional<Rational>& tau, unsigned threads,
                const std::vector<FloatFormat>& formats = {kBinary64});
  // The bound entering block 0's feed-forward layer of a mean collapse: block 0's attention layer
  // (A = 0, every token of X_j mapped to one point, lem:mean-shift) bounded on data's inputs by
  // chunks of sequences that decode only their own tokens, shared among exec's processes and
  // threads (collective with exec.sharding); then one token per sequence, as after
  // keep_one_token_per_sequence(). ref: the exact run after that layer, one token per sequence.
  // block(0) then bounds and advances block 0's feed-forward layer only.
  FloatRunBound(const Transformer<Rational>& model, ExactReference& ref, const Dataset& data, Setting kind,
                const std::optional<Rational>& tau, const Execution& exec, const std::vector<FloatFormat>& formats);
  ~FloatRunBound();
  FloatRunBound(const FloatRunBound&) = delete;
  FloatRunBound& operator=(const FloatRunBound&) = delete;

  // Softmax: the temperature, before the first block whose attention layer has A != 0 (the bound
  // of a layer with A = 0 does not depend on it: its scores are exactly 0, lem:float-softmax).
  void set_tau(const Rational& tau);
  // Block b (blocks in order from 0): bounds the float run through its attention layer, calls
  // attention() to advance the exact run through it (also for a layer with V = 0 and rho = 1,
  // which maps every x to x), then the same for its feed-forward layer.
  // Once every format's bound has failed it only advances. Returns the first failure of the callbacks.
  std::optional<std::string> block(std::size_t b, const AdvanceAttention& attention,
                                   const AdvanceFeedForward& feed_forward);
  // From block()'s attention callback, once the exact run keeps one token per sequence
  // (ExactForward::keep_one_token_per_sequence): each format keeps one token per sequence too,
  // with the largest errors of its tokens, and counts it for all of them.
  void keep_one_token_per_sequence();
  // Whether every format's bound has failed (block() then only advances the exact run).
  bool stopped() const;
  // After the collapsed start: the inputs' largest coordinate bit size (read on the way); else 0.
  std::size_t input_bits() const;
  // The facts per format (in the constructor's order), once: after the last block (or once
  // stopped), while ref still views the exact run.
  std::vector<FloatRunFacts> finish();

 private:
  std::optional<std::string> attention_layer(std::size_t b, bool attends, const AdvanceAttention& attention);
  std::optional<std::string> feed_forward_layer(std::size_t b, const AdvanceFeedForward& feed_forward);
  struct State;
  std::unique_ptr<State> s_;
};

// The float run of `model` on every input of `data`, against an exact run of its own:
// hardmax in exact rationals, softmax at temperature tau (enclosed with `precision`-bit
// intervals on exact directions, lem:direction-carrying). threads: tokens of a feed-forward
// layer (and the exact run's layers) run in parallel; the result does not depend on it.
// One FloatRunFacts per format, in order.
std::vector<FloatRunFacts> bound_float_runs(const Transformer<Rational>& model, const Dataset& data, Setting kind,
                                            const Rational& tau, unsigned precision, unsigned threads,
                                            const std::vector<FloatFormat>& formats);
// The same for one format.
FloatRunFacts bound_float_run(const Transformer<Rational>& model, const Dataset& data, Setting kind,
                              const Rational& tau, unsigned precision, unsigned threads = 1,
                              const FloatFormat& format = kBinary64);

}  // namespace seqi
