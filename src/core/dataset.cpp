#include "seqi/core/dataset.hpp"

namespace seqi {

std::size_t Dataset::sum_m() const {
  std::size_t s = 0;
  for (const auto& p : pairs) s += p.output.size();
  return s;
}

std::size_t Dataset::total_input_tokens() const {
  std::size_t s = 0;
  for (const auto& p : pairs) s += p.input.size();
  return s;
}

}  // namespace seqi
