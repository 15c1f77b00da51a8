#include "seqi/certification/float_reference.hpp"

#include <algorithm>
#include <cmath>
#include <utility>

#include "seqi/forward/carried_forward.hpp"
#include "seqi/forward/exact_forward.hpp"
#include "seqi/numbers/upward.hpp"

namespace seqi {
namespace {

void point_box(const Point& x, double* mid, double& rad) {
  rad = 0;
  for (Eigen::Index c = 0; c < x.size(); ++c) {
    const MidRad m = mid_rad(x[c]);
    mid[c] = m.mid;
    rad = std::max(rad, m.rad);
  }
}

class HardmaxReference final : public ExactReference {
 public:
  HardmaxReference(TokenState s, unsigned threads) : pass_(std::move(s), threads) {}
  std::size_t size() const override { return pass_.state().tokens.size(); }
  void box(std::size_t i, double* mid, double& rad) const override { point_box(pass_.state().tokens[i], mid, rad); }
  std::pair<Rational, Rational> affine_range(std::size_t i, const Point& u, const Rational& b) const override {
    const Rational v = dot(u, pass_.state().tokens[i]) + b;
    return {v, v};
  }
  const Point* point(std::size_t i) const override { return &pass_.state().tokens[i]; }
  std::vector<std::size_t> tokens_reading_in(const Point& r, const Rational& lo, const Rational& hi) override {
    return pass_.tokens_reading_in(r, lo, hi);
  }
  std::optional<std::string> attention(const SelfAttention<Rational>& sa) override {
    pass_.apply_attention(sa);
    return std::nullopt;
  }
  std::optional<std::string> attention(const SelfAttention<Rational>& sa, const std::vector<std::size_t>& attends) override {
    pass_.apply_attention_with_proven_argmax(sa, attends);
    return std::nullopt;
  }
  std::optional<std::string> feed_forward(const FeedForward<Rational>& ff) override {
    pass_.apply_feed_forward(ff);
    return std::nullopt;
  }
  std::optional<std::string> feed_forward(const FeedForward<Rational>& ff,
                                          const std::optional<OneDirectionForm>& form) override {
    pass_.apply_feed_forward(ff, form);
    return std::nullopt;
  }

 private:
  ExactForward pass_;
};

class SoftmaxReference final : public ExactReference {
 public:
  SoftmaxReference(TokenState s, const Rational& tau, unsigned precision, unsigned threads,
                   const CollapseEnclosures* collapse)
      : exact_(std::in_place, std::move(s), threads), tau_(tau), precision_(precision), threads_(threads),
        collapse_(collapse) {}
  std::size_t size() const override { return exact_ ? exact_->state().tokens.size() : carried_->tokens().size(); }
  void box(std::size_t i, double* mid, double& rad) const override {
    if (exact_) return point_box(exact_->state().tokens[i], mid, rad);
    const CarriedToken& t = carried_->tokens()[i];
    if (t.is_exact()) return point_box(t.p, mid, rad);
    // p + c w with c in [lo, hi]: centre p + w (lo + hi)/2, half-width |w|_inf (hi - lo)/2.
    point_box(Point(t.p + t.direction() * ((t.lo + t.hi) / 2)), mid, rad);
    double w = 0;
    for (Eigen::Index c = 0; c < t.direction().size(); ++c) w = std::max(w, magnitude_up(t.direction()[c]));
    rad = rad + w * magnitude_up((t.hi - t.lo) / 2);
  }
  std::pair<Rational, Rational> affine_range(std::size_t i, const Point& u, const Rational& b) const override {
    if (exact_) {
      const Rational v = dot(u, exact_->state().tokens[i]) + b;
      return {v, v};
    }
    const CarriedToken& t = carried_->tokens()[i];
    const Rational base = dot(u, t.p) + b;
    if (t.is_exact()) return {base, base};
    const Rational slope = dot(u, t.direction());
    const Rational a = base + slope * t.lo, z = base + slope * t.hi;
    return {std::min(a, z), std::max(a, z)};
  }
  const Point* point(std::size_t i) const override {
    if (exact_) return &exact_->state().tokens[i];
    const CarriedToken& t = carried_->tokens()[i];
    return t.is_exact() ? &t.p : nullptr;
  }
  std::vector<std::size_t> tokens_reading_in(const Point& r, const Rational& lo, const Rational& hi) override {
    return exact_ ? exact_->tokens_reading_in(r, lo, hi) : carried_->tokens_reading_in(r, lo, hi);
  }
  void begin_block(std::size_t b) override { block_ = b; }
  using ExactReference::attention;
  using ExactReference::feed_forward;
  std::optional<std::string> attention(const SelfAttention<Rational>& sa) override {
    const bool planned = collapse_ && block_ == collapse_->block;
    if (exact_ && !planned && (sa.is_identity() || sa.is_mean_shift())) {
      exact_->apply_attention(sa);  // weights exactly 1/n in softmax too (lem:mean-shift)
      return std::nullopt;
    }
    if (exact_) {  // the exact state moves into the carried one
      carried_.emplace(exact_->release_state(), precision_, threads_);
      exact_.reset();
    }
    if (!planned) return carried_->apply_attention(sa, tau_);
    return enclose_collapse(*carried_, sa, *collapse_, leader_values(*carried_, *collapse_, threads_));
  }
  std::optional<std::string> feed_forward(const FeedForward<Rational>& ff) override {
    return feed_forward(ff, one_direction_form(ff));
  }
  std::optional<std::string> feed_forward(const FeedForward<Rational>& ff,
                                          const std::optional<OneDirectionForm>& form) override {
    if (!exact_) return carried_->apply_feed_forward(ff);
    exact_->apply_feed_forward(ff, form);
    return std::nullopt;
  }

 private:
  std::optional<ExactForward> exact_;      // until the first attention layer that is not exact
  std::optional<CarriedForward> carried_;  // from then on
  Rational tau_;
  unsigned precision_, threads_;
  const CollapseEnclosures* collapse_;
  std::size_t block_ = 0;
};

}  // namespace

std::unique_ptr<ExactReference> hardmax_reference(TokenState inputs, unsigned threads) {
  return std::make_unique<HardmaxReference>(std::move(inputs), threads);
}

std::unique_ptr<ExactReference> softmax_reference(TokenState inputs, const Rational& tau, unsigned precision,
                                                  unsigned threads, const CollapseEnclosures* collapse) {
  return std::make_unique<SoftmaxReference>(std::move(inputs), tau, precision, threads, collapse);
}

}  // namespace seqi
