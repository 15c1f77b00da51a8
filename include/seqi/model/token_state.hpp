// The tokens of every sequence of a dataset, stored contiguously.
#pragma once
#include <cstddef>
#include <vector>

#include "seqi/core/dataset.hpp"

namespace seqi {

// Sequence j owns tokens [begin[j], begin[j+1]). tokens is empty where a TokenState describes only
// the layout (ShiftedTokens::layout); otherwise tokens.size() == begin.back().
struct TokenState {
  std::vector<Point> tokens;
  std::vector<std::size_t> begin{0};
  std::size_t sequences() const { return begin.size() - 1; }
  std::size_t size_of(std::size_t j) const { return begin[j + 1] - begin[j]; }
  // Sequence index owning each token (begin.back() entries).
  std::vector<std::size_t> owners() const;
};

// The pairs' inputs as Points, decoded on `threads` threads (the result does not depend on it).
TokenState inputs_of(const Dataset& data, unsigned threads = 1);
// The inputs of the pairs [first, last) alone, their sequence first + j as sequence j.
TokenState inputs_of(const Dataset& data, std::size_t first, std::size_t last, unsigned threads = 1);

}  // namespace seqi
