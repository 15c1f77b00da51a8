#include "seqi/forward/softmax_average.hpp"

#include <algorithm>

namespace seqi {

Interval exp_of_nonpositive(const Rational& x, unsigned precision) {
  const Rational floor_arg = -2048;
  if (x >= floor_arg) return exp(Interval(x, precision));
  return Interval::hull(0, exp(Interval(floor_arg, precision)).upper(), precision);
}

std::pair<Rational, Rational> softmax_average_enclosure(const std::vector<Rational>& scores,
                                                        const std::vector<Rational>& z, const Rational& tau,
                                                        unsigned precision) {
  // Shift by the best score: weights e^{(s_l - s_best)/tau} in (0, 1], the best one exactly 1.
  const std::size_t best = static_cast<std::size_t>(std::max_element(scores.begin(), scores.end()) - scores.begin());
  Interval weight_sum(Rational(1), precision), deviation(Rational(0), precision);
  for (std::size_t l = 0; l < scores.size(); ++l) {
    if (l == best) continue;
    const Interval w = exp_of_nonpositive((scores[l] - scores[best]) / tau, precision);
    weight_sum += w;
    deviation += w * (z[l] - z[best]);
  }
  const Interval avg = (deviation / weight_sum) + z[best];
  return {avg.lower(), avg.upper()};
}

}  // namespace seqi
