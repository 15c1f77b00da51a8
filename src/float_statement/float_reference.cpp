#include "seqi/float_statement/float_reference.hpp"

#include <algorithm>
#include <cmath>

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

}  // namespace

std::size_t ExactReference::size() const {
  return exact_ ? exact_->state().tokens.size() : carried_->tokens().size();
}

void ExactReference::box(std::size_t i, double* mid, double& rad) const {
  expect_upward_rounding("ExactReference::box");
  if (exact_) return point_box(exact_->state().tokens[i], mid, rad);
  const CarriedToken& t = carried_->tokens()[i];
  if (t.is_exact()) return point_box(t.p, mid, rad);
  // p + c w with c in [lo, hi]: centre p + w (lo + hi)/2, half-width |w|_inf (hi - lo)/2.
  const Point& w = t.direction();
  point_box(Point(t.p + w * ((t.lo + t.hi) / 2)), mid, rad);
  double w_inf = 0;
  for (Eigen::Index c = 0; c < w.size(); ++c) w_inf = std::max(w_inf, magnitude_up(w[c]));
  rad = rad + w_inf * magnitude_up((t.hi - t.lo) / 2);
}

std::pair<Rational, Rational> ExactReference::affine_range(std::size_t i, const Point& u, const Rational& b) const {
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

std::vector<std::size_t> ExactReference::tokens_reading_in(const Point& r, const Rational& lo, const Rational& hi) {
  return exact_ ? exact_->tokens_reading_in(r, lo, hi) : carried_->tokens_reading_in(r, lo, hi);
}

const Point* ExactReference::point(std::size_t i) const {
  if (exact_) return &exact_->state().tokens[i];
  const CarriedToken& t = carried_->tokens()[i];
  return t.is_exact() ? &t.p : nullptr;
}

SoftmaxRun::SoftmaxRun(TokenState inputs, const Rational& tau, unsigned precision, unsigned threads)
    : exact_(std::in_place, std::move(inputs), threads), view_(*exact_), tau_(tau), precision_(precision),
      threads_(threads) {}

std::optional<std::string> SoftmaxRun::attention(const SelfAttention<Rational>& sa) {
  if (exact_ && (sa.is_identity() || sa.is_mean_shift())) {
    exact_->apply_attention(sa);  // weights exactly 1/n in softmax too (lem:mean-shift)
    return std::nullopt;
  }
  if (exact_) {  // the exact state moves into the carried one
    carried_.emplace(exact_->release_state(), precision_, threads_);
    view_.follow(*carried_);
    exact_.reset();
  }
  return carried_->apply_attention(sa, tau_);
}

std::optional<std::string> SoftmaxRun::feed_forward(const FeedForward<Rational>& ff,
                                                    const std::optional<OneDirectionForm>& form) {
  if (!exact_) return carried_->apply_feed_forward(ff);
  exact_->apply_feed_forward(ff, form);
  return std::nullopt;
}

}  // namespace seqi
