#include "seqi/forward/softmax_weights.hpp"

#include <algorithm>
#include <stdexcept>

namespace seqi {
namespace {

// Weight enclosures from enclosures e_l > 0 of exp(t_l) (at least one with lower > 0).
std::vector<Interval> weights_from_exponentials(const std::vector<Interval>& e) {
  const std::size_t n = e.size();
  const unsigned prec = e.front().precision();
  // prefix[l] = e_0 + ... + e_{l-1}, suffix[l] = e_l + ... + e_{n-1}; R_l = prefix[l] + suffix[l+1].
  std::vector<Interval> prefix(n + 1, Interval(Rational(0), prec)), suffix(n + 1, Interval(Rational(0), prec));
  for (std::size_t l = 0; l < n; ++l) prefix[l + 1] = prefix[l] + e[l];
  for (std::size_t l = n; l-- > 0;) suffix[l] = suffix[l + 1] + e[l];
  std::vector<Interval> w;
  w.reserve(n);
  const Rational zero = 0, one = 1;
  for (std::size_t l = 0; l < n; ++l) {
    const Interval rest = prefix[l] + suffix[l + 1];
    Interval wl = Interval::hull(zero, one, prec);
    if (e[l].certainly_greater(zero)) {
      wl = one / (one + rest / e[l]);
    } else if (rest.certainly_greater(zero)) {  // e_l may be 0: 0 <= w_l <= e_l / rest
      wl = Interval::hull(zero, (e[l] / rest).upper(), prec);
    }
    w.push_back(*intersect(wl, zero, one));
  }
  return w;
}

}  // namespace

std::optional<std::vector<Rational>> exact_softmax_weights(const std::vector<Rational>& scores) {
  if (scores.empty()) throw std::invalid_argument("exact_softmax_weights: no scores");
  for (const auto& s : scores)
    if (s != scores.front()) return std::nullopt;
  return std::vector<Rational>(scores.size(), Rational(1, static_cast<long>(scores.size())));
}

std::vector<Interval> softmax_weights(const std::vector<Rational>& scores, const Rational& tau,
                                      unsigned precision_bits) {
  if (scores.empty() || tau <= 0) throw std::invalid_argument("softmax_weights: no scores or tau <= 0");
  const Rational top = *std::max_element(scores.begin(), scores.end());
  std::vector<Interval> e;
  e.reserve(scores.size());
  for (const auto& s : scores) e.push_back(exp(Interval((s - top) / tau, precision_bits)));  // the top one is exactly 1
  return weights_from_exponentials(e);
}

std::vector<Interval> softmax_weights(const std::vector<Interval>& scores, const Rational& tau) {
  if (scores.empty() || tau <= 0) throw std::invalid_argument("softmax_weights: no scores or tau <= 0");
  Rational top = scores.front().upper();
  for (const auto& s : scores) top = std::max(top, s.upper());
  std::vector<Interval> e;
  e.reserve(scores.size());
  for (const auto& s : scores) e.push_back(exp((s - top) / tau));
  // exp(0) = 1 is representable: the score attaining `top` has e with upper 1; a lower bound
  // of 0 (underflow) is handled in weights_from_exponentials.
  return weights_from_exponentials(e);
}

}  // namespace seqi
