#include "seqi/construction/isolation.hpp"

namespace seqi {

std::optional<Rational> isolation_gap(const std::vector<Rational>& t, const Rational& t_q,
                                      const std::function<bool(std::size_t)>& is_q) {
  Rational gap = 1;
  for (std::size_t i = 0; i < t.size(); ++i) {
    Rational dist = abs(t[i] - t_q);
    if (dist >= gap) continue;
    if (is_q(i)) continue;
    if (dist == 0) return std::nullopt;
    gap = dist;
  }
  return gap;
}

}  // namespace seqi
