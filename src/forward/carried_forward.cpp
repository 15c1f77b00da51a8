#include "seqi/forward/carried_forward.hpp"

#include <algorithm>
#include <exception>

#include "seqi/core/chunks.hpp"
#include "seqi/forward/softmax_average.hpp"
#include "seqi/forward/sparse_feed_forward.hpp"
#include "seqi/numbers/bit_limit.hpp"

namespace seqi {

namespace {

bool same_token(const CarriedToken& a, const CarriedToken& b) {
  if (a.is_exact() || b.is_exact()) return a.is_exact() && b.is_exact() && equal_points(a.p, b.p);
  return a.lo == b.lo && a.hi == b.hi && equal_points(a.p, b.p) &&
         (a.w == b.w || equal_points(a.direction(), b.direction()));
}

}  // namespace

CarriedForward::CarriedForward(TokenState exact, unsigned precision, unsigned threads)
    : begin_(std::move(exact.begin)), precision_(precision), threads_(threads) {
  tokens_.reserve(exact.tokens.size());
  for (auto& x : exact.tokens) tokens_.push_back(CarriedToken::exact(std::move(x)));
}

void CarriedForward::check_bits(const CarriedToken& t, std::size_t i) const {
  const auto here = [&] { return where(i); };
  check_bit_growth(t.p, here);
  if (t.w) check_bit_growth(*t.w, here);
  check_bit_growth(t.lo, here);
  check_bit_growth(t.hi, here);
}

void CarriedForward::enclose_token(std::size_t i, const Rational& rho, std::shared_ptr<const Point> w, Rational lo,
                                   Rational hi) {
  Point p = std::move(tokens_[i].p);
  if (rho != 1) p *= rho;
  CarriedToken t = CarriedToken::enclosure(std::move(p), std::move(w), std::move(lo), std::move(hi));
  check_bits(t, i);
  tokens_[i] = std::move(t);
  index_.invalidate();
}

std::variant<TokenState, std::size_t> CarriedForward::release_points() {
  for (std::size_t i = 0; i < tokens_.size(); ++i)
    if (!tokens_[i].is_exact()) return i;
  TokenState s;
  s.begin = std::move(begin_);
  s.tokens.reserve(tokens_.size());
  for (auto& t : tokens_) s.tokens.push_back(std::move(t.p));
  tokens_ = {};
  index_.invalidate();
  return s;
}

std::string CarriedForward::where(std::size_t token) const {
  const auto j = static_cast<std::size_t>(std::upper_bound(begin_.begin(), begin_.end(), token) - begin_.begin()) - 1;
  return "sequence " + std::to_string(j + 1) + ", token " + std::to_string(token - begin_[j] + 1);
}

std::optional<std::string> CarriedForward::apply_attention(const SelfAttention<Rational>& sa, const Rational& tau) {
  if (sa.is_identity()) return std::nullopt;
  index_.invalidate();
  // Per chunk of sequences, in order: the first failure or exception.
  struct Outcome {
    std::optional<std::string> failure;
    std::exception_ptr error;
  };
  const std::size_t sequences = begin_.size() - 1;
  std::vector<Outcome> out(chunk_count(sequences, threads_));
  for_each_chunk(sequences, threads_, [&](std::size_t c, std::size_t first, std::size_t last) {
    for (std::size_t j = first; j < last && !out[c].failure && !out[c].error; ++j) {
      try {
        out[c].failure = attend(sa, tau, j);
      } catch (...) {
        out[c].error = std::current_exception();
      }
    }
  });
  for (auto& o : out) {
    if (o.failure) return std::move(o.failure);
    if (o.error) std::rethrow_exception(o.error);
  }
  return std::nullopt;
}

std::optional<std::string> CarriedForward::apply_attention_to(const SelfAttention<Rational>& sa, const Rational& tau,
                                                              std::size_t j) {
  if (sa.is_identity()) return std::nullopt;
  index_.invalidate();
  return attend(sa, tau, j);
}

std::optional<std::string> CarriedForward::attend(const SelfAttention<Rational>& sa, const Rational& tau,
                                                  std::size_t j) {
  const bool rank_one_V = sa.V.alpha == 0 && sa.V.terms.size() == 1;
  if (!sa.is_mean_shift() && !rank_one_V)
    return "an attention layer with A != 0 and V not of the form p q^T cannot be enclosed on an exact direction";
  TokenList<Rational> X;
  for (std::size_t i = begin_[j]; i < begin_[j + 1]; ++i) {
    if (!tokens_[i].is_exact()) return where(i) + ": softmax attention on a token that is already an enclosure";
    X.push_back(tokens_[i].p);
  }
  if (sa.is_mean_shift()) {  // weights exactly 1/n in softmax too (lem:mean-shift)
    X = apply_hardmax(sa, X);
    for (std::size_t i = begin_[j]; i < begin_[j + 1]; ++i) {
      tokens_[i] = CarriedToken::exact(std::move(X[i - begin_[j]]));
      check_bits(tokens_[i], i);
    }
    return std::nullopt;
  }
  // Output rho x_i + p (q . sum_l pi_il x_l): exact part rho x_i, coefficient enclosed on p.
  const auto& term = sa.V.terms.front();
  const auto direction = std::make_shared<const Point>(term.p);
  std::vector<Rational> z;
  for (const auto& x : X) z.push_back(dot(term.q, x));
  std::vector<Rational> scores(X.size());
  for (std::size_t i = 0; i < X.size(); ++i) {
    const Point Ax = sa.A.apply(X[i]);
    for (std::size_t l = 0; l < X.size(); ++l) scores[l] = dot(Ax, X[l]);
    auto [lo, hi] = softmax_average_enclosure(scores, z, tau, precision_);
    CarriedToken t = CarriedToken::enclosure(X[i] * sa.rho, direction, std::move(lo), std::move(hi));
    check_bits(t, begin_[j] + i);
    tokens_[begin_[j] + i] = std::move(t);
  }
  return std::nullopt;
}

std::vector<std::size_t> CarriedForward::tokens_reading_in(const Point& r, const Rational& lo, const Rational& hi) {
  index_readings(
      tokens_, index_, r, [](const CarriedToken& t, const Point& d) { return t.reading(d); }, threads_);
  std::vector<std::size_t> in = index_.meeting(lo, hi);
  std::sort(in.begin(), in.end());
  return in;
}

std::optional<std::string> CarriedForward::apply_feed_forward(const FeedForward<Rational>& ff) {
  // Every point of an enclosure whose reading avoids (lo, hi) is fixed (lem:sparse-ff).
  const auto step = apply_feed_forward_sparsely(
      tokens_, index_, identity_outside_breakpoints(ff),
      [](const CarriedToken& t, const Point& r) { return t.reading(r); }, same_token,
      [&](const CarriedToken& t, std::size_t i) {
        auto y = apply_carried(ff, t, nullptr);
        if (y) check_bits(*y, i);
        return y;
      },
      threads_);
  if (!step.failed_token) return std::nullopt;
  const auto& t = tokens_[*step.failed_token];  // untouched: it declined
  std::size_t unit = 0;
  (void)apply_carried(ff, t, &unit);
  return where(*step.failed_token) + ": the enclosure c in [" + approx_decimal(t.lo, 12) + ", " +
         approx_decimal(t.hi, 12) + "] makes the pre-activation of unit " + std::to_string(unit) +
         " straddle 0 (it leaves its flat)";
}

}  // namespace seqi
