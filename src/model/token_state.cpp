#include "seqi/model/token_state.hpp"

namespace seqi {

std::vector<std::size_t> TokenState::owners() const {
  std::vector<std::size_t> owner(tokens.size());
  for (std::size_t j = 0; j < sequences(); ++j)
    for (std::size_t i = begin[j]; i < begin[j + 1]; ++i) owner[i] = j;
  return owner;
}

TokenState inputs_of(const Dataset& data) {
  TokenState s;
  s.tokens.reserve(data.total_input_tokens());
  for (const auto& p : data.pairs) {
    for (std::size_t i = 0; i < p.input.size(); ++i) s.tokens.push_back(p.input[i]);
    s.begin.push_back(s.tokens.size());
  }
  return s;
}

}  // namespace seqi
