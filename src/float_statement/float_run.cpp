// lem:float-run (Float64 run, proofs/float-run.tex): the float run of the model bounded block by
// block beside the exact run (FloatRunBound), and the state it keeps per token: the inputs rounded
// to nearest double (step 0) and the norms of a token's box. The steps of the proof are in
// attention_bound.cpp (lem:float-attention, lem:float-softmax), feed_forward_bound.cpp
// (lem:float-ff), sparse_feed_forward_bound.cpp (lem:float-run-sparse) and weight_bounds.cpp (the
// bounds that depend on the weights alone); propagation.hpp holds the analysis and its invariants.
#include "seqi/float_statement/float_run.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "float_statement/collapsed_start.hpp"
#include "float_statement/propagation.hpp"
#include "float_statement/weight_bounds.hpp"
#include "seqi/float_statement/float_reference.hpp"
#include "seqi/forward/one_direction_ff.hpp"
#include "seqi/numbers/upward.hpp"

namespace seqi {
namespace float_run_detail {

std::string Propagation::where(std::size_t i) const {
  const auto j = static_cast<std::size_t>(std::upper_bound(begin_.begin(), begin_.end(), i) - begin_.begin()) - 1;
  return "sequence " + std::to_string(first_sequence_ + j + 1) +
         (weight_.empty() ? ", token " + std::to_string(i - begin_[j] + 1) : std::string(", every token"));
}

std::size_t Propagation::weight_of(const std::vector<std::size_t>& tokens) const {
  if (weight_.empty()) return tokens.size();
  std::size_t sum = 0;
  for (std::size_t i : tokens) sum += weight_[i];
  return sum;
}

void Propagation::keep_one_token_per_sequence() {
  if (pending_) throw std::logic_error("keep_one_token_per_sequence: sparse charges pending");
  if (ref_.size() != begin_.size() - 1)
    throw std::logic_error("keep_one_token_per_sequence: the exact run has not kept one token each");
  keep(per_sequence());
}

Propagation::Kept Propagation::per_sequence() const {
  const std::size_t n = begin_.size() - 1;
  Kept k{std::vector<std::size_t>(n), std::vector<std::size_t>(n), std::vector<double>(n), std::vector<double>(n)};
  for (std::size_t j = 0; j < n; ++j)
    for (std::size_t i = begin_[j]; i < begin_[j + 1]; ++i) {
      k.weight[j] += weight(i);
      k.e[j] = std::max(k.e[j], e_[i]);
      k.rho[j] = std::max(k.rho[j], rho_[i]);
      k.stamp[j] = std::max(k.stamp[j], stamp_[i]);
    }
  return k;
}

// One token per sequence: kept's, with fresh boxes and readings to come (refresh_all).
void Propagation::keep(Kept kept) {
  const std::size_t n = kept.weight.size();
  std::vector<std::size_t> begin(n + 1);
  for (std::size_t j = 0; j < n; ++j) begin[j + 1] = j + 1;
  weight_ = std::move(kept.weight), begin_ = std::move(begin), stamp_ = std::move(kept.stamp), e_ = std::move(kept.e),
  rho_ = std::move(kept.rho);
  mid_.assign(n * d_, 0), rad_.assign(n, 0), t_lo_.assign(n, 0), t_hi_.assign(n, 0);
  argmax_.clear();
  order_ = EnclosureOrder();
  readings_current_ = false;
}

void Propagation::enter_kept(Kept kept, std::size_t represented, const std::optional<Point>& direction,
                             std::size_t decisions) {
  if (ref_.size() != kept.weight.size()) throw std::logic_error("enter_kept: the exact run has not one token per sequence");
  keep(std::move(kept));
  represented_ = represented;
  direction_ = direction;
  facts_.decisions += decisions;
}

// Inputs rounded to nearest double: e_i = u max_c |x_ic| (lem:float-run, step 0).
std::optional<std::string> Propagation::start() {
  for (std::size_t i = 0; i < e_.size(); ++i) {
    refresh(i);
    if (const Point* x = ref_.point(i))
      for (Eigen::Index c = 0; c < x->size(); ++c)
        if (!in_relative_range((*x)[c], fmt_))
          return where(i) + ": " + *out_of_range((*x)[c], "coordinate " + std::to_string(c + 1), fmt_);
    e_[i] = fmt_.u * exact_inf(i);
  }
  return std::nullopt;
}

// Frees every per-token and per-layer bound once the bound has stopped (nothing reads them then):
// about 65 bytes per token and 8 per coordinate, alive through the rest of the exact pass otherwise.
void Propagation::release() {
  for (auto* v : {&mid_, &rad_, &e_, &rho_, &t_lo_, &t_hi_, &mid_max_}) std::vector<double>().swap(*v);
  std::vector<std::size_t>().swap(stamp_);
  std::vector<std::size_t>().swap(argmax_);
  order_ = EnclosureOrder();
  right_ = LayerCharges(0);
  left_ = LayerCharges(0);
}

// Every box after a layer that may change every token (every bound settled).
void Propagation::refresh_all() {
  for (std::size_t i = 0; i < e_.size(); ++i) refresh(i);
  readings_current_ = false;
}

// Largest |x*_c| bound over coordinates of token i.
double Propagation::exact_inf(std::size_t i) const {
  double x = 0;
  for (std::size_t c = 0; c < d_; ++c) x = std::max(x, std::fabs(mid_[i * d_ + c]) + rad_[i]);
  return x;
}

// >= |xhat_i - xhat_l|_1.
double Propagation::difference_one(std::size_t i, std::size_t l) const {
  double x = 0;
  for (std::size_t c = 0; c < d_; ++c)  // each difference rounded up in both orders
    x = x + std::max(mid_[i * d_ + c] - mid_[l * d_ + c], mid_[l * d_ + c] - mid_[i * d_ + c]);
  return x + static_cast<double>(d_) * (rad_[i] + rad_[l] + e_[i] + e_[l]);
}

// >= |x*_i|_1 (sum over coordinates of the box bound).
double Propagation::exact_one(std::size_t i) const {
  double x = 0;
  for (std::size_t c = 0; c < d_; ++c) x = x + std::fabs(mid_[i * d_ + c]) + rad_[i];
  return x;
}

}  // namespace float_run_detail

namespace {

FloatRunFacts failed(FloatRunFacts facts, std::size_t block, const char* layer, const std::string& why) {
  facts.certified = false;
  facts.failure = "block " + std::to_string(block + 1) + " (" + layer + "), " + why;
  return facts;
}

}  // namespace

namespace float_run_detail {

// One format's bound: its running-error state, and its facts once it has failed.
struct FormatRun {
  FormatRun(ExactReference& ref, std::vector<std::size_t> begin, std::size_t d, unsigned threads, std::size_t layers,
            const FloatFormat& fmt, std::size_t slot)
      : format(fmt), run(ref, std::move(begin), d, threads, layers, fmt, slot) {}
  FloatFormat format;
  float_run_detail::Propagation run;
  std::optional<FloatRunFacts> stopped;  // the facts of a bound that failed
  std::vector<std::size_t> changed;
  void stop(std::size_t block, const char* layer, const std::string& why) {
    stopped = failed(run.facts(), block, layer, why);
    stopped->format = format.name;
    run.release();
  }
};

}  // namespace float_run_detail

using float_run_detail::FormatRun;

struct FloatRunBound::State {
  State(const Transformer<Rational>& m, ExactReference& ref, const std::vector<std::size_t>& begin, Setting k,
        unsigned threads, const std::vector<FloatFormat>& formats)
      : model(m), kind(k), preps(m, threads, formats) {
    for (std::size_t f = 0; f < formats.size(); ++f)
      runs.push_back(std::make_unique<FormatRun>(ref, begin, static_cast<std::size_t>(m.dimension), threads,
                                                 m.blocks.size(), formats[f], f));
  }
  const Transformer<Rational>& model;
  Setting kind;
  std::vector<std::unique_ptr<FormatRun>> runs;  // one per format, in the caller's order
  float_run_detail::LayerPreps preps;
  bool tau_set = false;
  double tau_inv = 0;
  std::size_t next_block = 0;
  bool collapsed_start = false;  // block 0's attention layer already bounded (bound_collapsed_start)
  std::size_t input_bits = 0;     // collapsed start: the inputs' largest coordinate bit size
  bool all_stopped() const {
    return std::all_of(runs.begin(), runs.end(), [](const auto& r) { return r->stopped.has_value(); });
  }
  template <class F>
  void for_live(F&& f) {
    for (auto& r : runs)
      if (!r->stopped) f(*r);
  }
};

FloatRunBound::FloatRunBound(const Transformer<Rational>& model, ExactReference& ref, const std::vector<std::size_t>& begin,
                             Setting kind, const std::optional<Rational>& tau, unsigned threads,
                             const std::vector<FloatFormat>& formats)
    : s_(std::make_unique<State>(model, ref, begin, kind, threads, formats)) {
  if (kind == Setting::softmax && tau) set_tau(*tau);
  UpwardRounding up;
  s_->for_live([](FormatRun& r) {
    if (auto f = r.run.start()) r.stop(0, "input", *f);
  });
}

FloatRunBound::FloatRunBound(const Transformer<Rational>& model, ExactReference& ref, const Dataset& data, Setting kind,
                             const std::optional<Rational>& tau, const Execution& exec,
                             const std::vector<FloatFormat>& formats) {
  std::vector<std::size_t> begin(data.pairs.size() + 1);
  for (std::size_t j = 0; j < data.pairs.size(); ++j) begin[j + 1] = j + 1;
  s_ = std::make_unique<State>(model, ref, begin, kind, exec.threads, formats);
  s_->collapsed_start = true;
  if (kind == Setting::softmax && tau) set_tau(*tau);
  std::optional<Point> next;
  if (const auto& one = s_->preps.at(0).one) next = one->r;
  auto start = float_run_detail::bound_collapsed_start(data, model.blocks.at(0).sa, kind, s_->tau_inv, next, formats, exec);
  s_->input_bits = start.input_bits;
  UpwardRounding up;
  for (std::size_t f = 0; f < formats.size(); ++f) {
    FormatRun& r = *s_->runs[f];
    if (r.stopped) continue;  // tau out of range
    auto& got = start.formats[f];
    if (!got.failed_layer.empty()) {
      r.run.facts().decisions += got.decisions;
      r.stop(0, got.failed_layer.c_str(), got.failure);
      continue;
    }
    r.run.enter_kept(std::move(got.kept), start.represented, next, got.decisions);
    r.run.refresh_all();
  }
}

void FloatRunBound::set_tau(const Rational& tau) {
  s_->tau_set = true;
  UpwardRounding up;
  s_->for_live([&](FormatRun& r) {
    if (auto f = float_run_detail::out_of_range(tau, "tau", r.format))
      r.stop(s_->next_block, "attention", *f);
    else
      r.run.set_tau(tau);
  });
  s_->tau_inv = magnitude_up(1 / tau);
}

FloatRunBound::~FloatRunBound() = default;

bool FloatRunBound::stopped() const { return s_->all_stopped(); }

std::size_t FloatRunBound::input_bits() const { return s_->input_bits; }

void FloatRunBound::keep_one_token_per_sequence() {
  s_->for_live([](FormatRun& r) { r.run.keep_one_token_per_sequence(); });
}

// The attention layer of block b bounded in every live format (each stops on its own failure);
// then the exact run advanced once, with a proven argmax when a live format has shown one.
std::optional<std::string> FloatRunBound::attention_layer(std::size_t b, bool attends,
                                                         const AdvanceAttention& attention) {
  const auto& block = s_->model.blocks[b];
  const float_run_detail::LayerPrep& prep = s_->preps.at(b);
  if (attends) {
    UpwardRounding up;
    s_->for_live([&](FormatRun& r) {
      r.run.settle_all(b);
      std::optional<Point> next_direction;
      if (prep.one) next_direction = prep.one->r;
      if (auto f = r.run.attention(block.sa, s_->kind, s_->tau_inv, next_direction)) r.stop(b, "attention", *f);
    });
  }
  std::vector<std::size_t> argmax;
  if (attends)
    s_->for_live([&](FormatRun& r) {
      if (argmax.empty()) argmax = r.run.argmax();
    });
  if (auto f = attention(argmax)) {
    s_->for_live([&](FormatRun& r) { r.stop(b, "attention", "exact run: " + *f); });
    return f;
  }
  if (attends) {
    UpwardRounding up;
    s_->for_live([](FormatRun& r) { r.run.refresh_all(); });
  }
  return std::nullopt;
}

std::optional<std::string> FloatRunBound::block(std::size_t b, const AdvanceAttention& attention,
                                                const AdvanceFeedForward& feed_forward) {
  const auto& block = s_->model.blocks[b];
  const bool attends = !block.sa.V.is_zero() || block.sa.rho != 1;  // else the layer maps x to x, in floats too
  s_->next_block = b + 1;
  if (s_->all_stopped()) {  // the exact run only (the layer's form from the preps, in batches on the threads)
    if (!(b == 0 && s_->collapsed_start))
      if (auto f = attention({})) return f;
    s_->preps.forms_only();
    return feed_forward(s_->preps.at(b).one);
  }
  if (b == 0 && s_->collapsed_start) return feed_forward_layer(b, feed_forward);
  if (s_->kind == Setting::softmax && attends && !block.sa.A.is_zero() && !s_->tau_set)
    throw std::logic_error("FloatRunBound: set_tau() must precede block " + std::to_string(b + 1));
  if (auto f = attention_layer(b, attends, attention)) return f;
  return feed_forward_layer(b, feed_forward);
}

std::optional<std::string> FloatRunBound::feed_forward_layer(std::size_t b, const AdvanceFeedForward& feed_forward) {
  const auto& block = s_->model.blocks[b];
  const float_run_detail::LayerPrep& prep = s_->preps.at(b);
  {
    UpwardRounding up;
    s_->for_live([&](FormatRun& r) {
      r.changed.clear();
      if (auto f = r.run.feed_forward(block.ff, prep, b, r.changed)) r.stop(b, "feed-forward", *f);
    });
  }
  if (auto f = feed_forward(prep.one)) {
    s_->for_live([&](FormatRun& r) { r.stop(b, "feed-forward", "exact run: " + *f); });
    return f;
  }
  UpwardRounding up;
  s_->for_live([&](FormatRun& r) { r.run.refresh_changed(r.changed, b); });
  return std::nullopt;
}

std::vector<FloatRunFacts> FloatRunBound::finish() {
  std::vector<FloatRunFacts> out;
  UpwardRounding up;
  for (auto& r : s_->runs) {
    if (r->stopped) {
      out.push_back(*r->stopped);
      continue;
    }
    float_run_detail::Propagation& run = r->run;
    run.settle_all(s_->model.blocks.size());
    FloatRunFacts facts = run.facts();
    double out_max = 0;
    for (std::size_t i = 0; i < run.errors().size(); ++i) {
      facts.delta = std::max(facts.delta, run.errors()[i]);
      out_max = std::max(out_max, run.exact_inf(i));
    }
    facts.certified = true;
    facts.relative_delta = out_max > 0 ? facts.delta / out_max : facts.delta;
    facts.format = r->format.name;
    out.push_back(std::move(facts));
  }
  return out;
}

std::vector<FloatRunFacts> bound_float_runs(const Transformer<Rational>& model, const Dataset& data, Setting kind,
                                            const Rational& tau, unsigned precision, unsigned threads,
                                            const std::vector<FloatFormat>& formats) {
  TokenState inputs = inputs_of(data, threads);
  std::vector<std::size_t> begin = inputs.begin;
  if (kind == Setting::hardmax) {
    ExactForward pass(std::move(inputs), threads);
    ExactReference ref(pass);
    FloatRunBound bound(model, ref, begin, kind, std::nullopt, threads, formats);
    for (std::size_t b = 0; b < model.blocks.size() && !bound.stopped(); ++b)
      (void)bound.block(
          b,
          [&](const std::vector<std::size_t>& argmax) {
            if (argmax.empty())
              pass.apply_attention(model.blocks[b].sa);
            else
              pass.apply_attention_with_proven_argmax(model.blocks[b].sa, argmax);
            return std::optional<std::string>();
          },
          [&](const std::optional<OneDirectionForm>& form) {
            pass.apply_feed_forward(model.blocks[b].ff, form);
            return std::optional<std::string>();
          });
    return bound.finish();
  }
  SoftmaxRun exact(std::move(inputs), tau, precision, threads);
  FloatRunBound bound(model, exact.view(), begin, kind, tau, threads, formats);
  for (std::size_t b = 0; b < model.blocks.size() && !bound.stopped(); ++b)
    (void)bound.block(
        b, [&](const std::vector<std::size_t>&) { return exact.attention(model.blocks[b].sa); },
        [&](const std::optional<OneDirectionForm>& form) { return exact.feed_forward(model.blocks[b].ff, form); });
  return bound.finish();
}

FloatRunFacts bound_float_run(const Transformer<Rational>& model, const Dataset& data, Setting kind,
                              const Rational& tau, unsigned precision, unsigned threads, const FloatFormat& format) {
  return bound_float_runs(model, data, kind, tau, precision, threads, {format}).front();
}

}  // namespace seqi
