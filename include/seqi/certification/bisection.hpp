// Bisection of enclosures (lem:bisection): when a sequence stays undecided at the highest
// precision, the state after the first block that made a token inexact is covered by cells,
// each a copy of that state with one token's coefficient interval halved; every cell is run
// through the remaining blocks. The true output lies in the output enclosure of some cell, so
// the union of the cells' distance enclosures (endpointwise min of lower, max of upper bounds)
// encloses the true distance.
#pragma once
#include <cstddef>
#include <optional>
#include <string>

#include "seqi/certification/distance_enclosure.hpp"
#include "seqi/forward/general_forward.hpp"
#include "seqi/model/transformer.hpp"

namespace seqi {

struct BisectionOutcome {
  DistanceEnclosure distance;     // union over the cells
  SequenceVerdict verdict = SequenceVerdict::undecided;
  std::size_t cells = 1;          // cells at the end (splits + 1)
  std::size_t split_block = 0;    // 0-based block after which the state was split
  std::string detail;             // witness or what is left undecided
};

// The covering of two distance enclosures: the true distance lies in one of them.
DistanceEnclosure union_of(const DistanceEnclosure& a, const DistanceEnclosure& b);

// Splits at most `max_splits` times, always the cell with the widest distance enclosure along
// the coefficient with the largest width(c_k) * max|g_k|; stops when the union is decided.
// nullopt when there is nothing to split (the pass is exact, or no coefficient has width).
// Throws what the forward pass throws (interval overflow, a divisor enclosing 0).
std::optional<BisectionOutcome> bisect_sequence(const Transformer<Rational>& model, const SequencePair& pair,
                                                const Rational& tau, unsigned precision_bits,
                                                std::size_t branch_limit, const Rational& tolerance,
                                                std::size_t max_splits);

}  // namespace seqi
