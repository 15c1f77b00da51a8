// A feed-forward layer FF(x) = eta x + W relu(U x + b) on an enclosed token (lem:ff-signs).
// The pre-activation of unit i is the exact a_i = U_i.p + b_i plus sum_k (U_i.g_k) c_k; its
// sign is decided exactly from the interval's rational endpoints. With every sign decided
// the layer is one exact affine map on the enclosure (an exact point stays exact; generators
// the layer annihilates vanish). Undecided units are branched on (lem:relu-branching): each
// sign pattern is an exact case split whose coefficient box is contracted by the pattern's
// linear constraints; the image is the hull of the branches. Beyond the branch limit an
// undecided unit contributes W_i r_i with r_i in [0, max z_i] (interval ReLU).
#pragma once
#include <cstddef>
#include <optional>

#include "seqi/forward/affine_enclosure.hpp"
#include "seqi/model/feed_forward.hpp"

namespace seqi {

struct FeedForwardOutcome {
  AffineEnclosure y;
  std::size_t undecided_units = 0;   // units whose sign the enclosure did not decide
  std::size_t branched_units = 0;    // of those, settled by branching
  std::size_t interval_units = 0;    // of those, enclosed by interval ReLU
  std::optional<std::size_t> first_interval_unit;  // 0-based
};

FeedForwardOutcome feed_forward_enclosure(const FeedForward<Rational>& ff, const AffineEnclosure& x,
                                          unsigned precision_bits, std::size_t branch_limit);

// The coefficient box c with sign * (a + sum_k g_k c_k) >= 0 imposed (one contraction pass
// per coefficient); nullopt when no point of the box satisfies it. Sound: every c in the
// input box that satisfies the constraint lies in the output box.
std::optional<IntervalBox> contract_halfspace(const IntervalBox& c, const Rational& a, const std::vector<Rational>& g,
                                              int sign);

}  // namespace seqi
