// A dataset of input/output token sequences with exact rational coordinates.
#pragma once
#include <string>
#include <vector>

#include "seqi/core/token_sequence.hpp"
#include "seqi/numbers/rational.hpp"

namespace seqi {

using Sequence = std::vector<Point>;

struct SequencePair {
  TokenSequence input;   // X_j: n_j tokens, stored compactly (the bulk of a dataset's memory)
  TokenSequence output;  // Y_j: m_j tokens, 1 <= m_j <= n_j, stored compactly too
};

struct Dataset {
  std::string name;
  int dimension = 0;
  std::vector<SequencePair> pairs;
  std::vector<std::string> notes;  // non-fatal remarks (e.g. duplicate pairs merged)
  std::size_t sum_m() const;
  std::size_t total_input_tokens() const;
};

}  // namespace seqi
