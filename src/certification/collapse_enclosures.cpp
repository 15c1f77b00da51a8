#include "seqi/certification/collapse_enclosures.hpp"

#include "seqi/core/chunks.hpp"

namespace seqi {

std::vector<Rational> leader_values(const CarriedForward& carried, const CollapseEnclosures& plan, unsigned threads) {
  const auto& t = carried.tokens();
  std::vector<Rational> z(t.size());
  for_each_chunk(t.size(), threads, [&](std::size_t, std::size_t first, std::size_t last) {
    for (std::size_t i = first; i < last; ++i) z[i] = dot(plan.a, t[plan.attends[i]].p);
  });
  return z;
}

std::optional<std::string> enclose_collapse(CarriedForward& carried, const SelfAttention<Rational>& sa,
                                            const CollapseEnclosures& plan, const std::vector<Rational>& z) {
  std::optional<std::string> failure;
  const auto& begin = carried.begin();
  for (std::size_t j = 0; j + 1 < begin.size(); ++j) {
    if (!plan.radius[j]) {
      if (auto f = carried.apply_attention_to(sa, plan.tau, j); f && !failure)
        failure = "block " + std::to_string(plan.block + 1) + ": " + *f;
      continue;
    }
    const Rational& r = *plan.radius[j];
    for (std::size_t i = begin[j]; i < begin[j + 1]; ++i) carried.enclose_token(i, sa.rho, plan.v, z[i] - r, z[i] + r);
  }
  return failure;
}

}  // namespace seqi
