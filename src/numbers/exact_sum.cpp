#include "seqi/numbers/exact_sum.hpp"

#include <utility>

namespace seqi {

Rational exact_sum(std::vector<Rational> terms) {
  if (terms.empty()) return 0;
  for (std::size_t n = terms.size(); n > 1;) {
    const std::size_t half = n / 2;
    for (std::size_t i = 0; i < half; ++i) {
      Rational s = std::move(terms[2 * i]);
      s += terms[2 * i + 1];
      terms[i] = std::move(s);
    }
    if (n % 2 == 1) terms[half] = std::move(terms[n - 1]);
    n = half + n % 2;
  }
  return std::move(terms[0]);
}

}  // namespace seqi
