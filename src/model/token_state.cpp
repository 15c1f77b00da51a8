#include "seqi/model/token_state.hpp"

#include "seqi/core/parallel.hpp"

namespace seqi {

std::vector<std::size_t> TokenState::owners() const {
  std::vector<std::size_t> owner(begin.back());
  for (std::size_t j = 0; j < sequences(); ++j)
    for (std::size_t i = begin[j]; i < begin[j + 1]; ++i) owner[i] = j;
  return owner;
}

TokenState inputs_of(const Dataset& data, unsigned threads) { return inputs_of(data, 0, data.pairs.size(), threads); }

TokenState inputs_of(const Dataset& data, std::size_t first, std::size_t last, unsigned threads) {
  TokenState s;
  for (std::size_t j = first; j < last; ++j) s.begin.push_back(s.begin.back() + data.pairs[j].input.size());
  s.tokens.resize(s.begin.back());
  for_each_index(last - first, threads, [&](std::size_t j) {  // sequence j writes only its own slots
    const auto& in = data.pairs[first + j].input;
    for (std::size_t i = 0; i < in.size(); ++i) s.tokens[s.begin[j] + i] = in[i];
  });
  return s;
}

}  // namespace seqi
