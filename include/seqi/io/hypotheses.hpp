// Hypotheses H1-H5 (def:hypotheses in proofs/construction.tex), checked on a dataset.
#pragma once
#include <cstddef>
#include <string>

#include "seqi/core/dataset.hpp"
#include "seqi/core/input_error.hpp"

namespace seqi {

// Checks H1-H5 and that every token has `data.dimension` coordinates; throws InputError
// naming the pair and token (1-based). Runs in O(T log T * d) for T tokens in total.
//   H1 tokens of each input pairwise distinct;  H2 tokens of each output pairwise distinct;
//   H3 input sets pairwise distinct: pairs whose input sets and output sets are both equal
//      (as sets) are merged, keeping the first, with a note in data.notes; equal input sets
//      with different output sets are an error;
//   H4 d >= 2;  H5 m_j <= n_j (and n_j, m_j >= 1, at least one pair).
void check_hypotheses(Dataset& data, const std::string& source);

// Helpers shared with the JSON reader so both word their messages the same way.
namespace detail {
// "pair 2, input token 3" from 0-based indices.
std::string token_place(std::size_t pair, bool output, std::size_t token);
// Throws InputError (H4) unless d >= 2.
void check_dimension_value(long long d, const std::string& source);
// Throws InputError unless a token with `got` coordinates matches dimension d.
void check_token_size(std::size_t got, int d, std::size_t pair, bool output, std::size_t token,
                      const std::string& source);
}  // namespace detail

}  // namespace seqi
