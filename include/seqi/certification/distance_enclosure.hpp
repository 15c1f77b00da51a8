// Certified distance of a sequence's outputs to its target set (lem:general-verdict).
// With O the output tokens and Y the targets:
//   loss term  l = max_{o in O} min_{y in Y} |o - y|^2  (the authors' training loss, per sequence)
//   Hausdorff  H^2 = max(l, max_{y in Y} min_{o in O} |o - y|^2).
// Squared distances of exact outputs are exact rationals; of enclosures, outward-rounded
// intervals. min and max are monotone, so endpoints combine endpointwise.
#pragma once
#include <string>
#include <vector>

#include "seqi/forward/affine_enclosure.hpp"
#include "seqi/core/dataset.hpp"

namespace seqi {

struct DistanceEnclosure {
  Rational hausdorff_sq_lo, hausdorff_sq_hi;
  Rational loss_lo, loss_hi;
  std::string witness;  // the output token or target with the largest certified lower bound
  std::size_t widest_token = 0;  // 0-based output token with the widest squared-distance enclosure
};

DistanceEnclosure distance_to_targets(const std::vector<AffineEnclosure>& outputs, const Sequence& targets,
                                      unsigned precision_bits);

enum class SequenceVerdict { exact, within_delta, not_interpolating, undecided };
const char* verdict_name(SequenceVerdict v);

// exact: H^2 <= 0 certified; within delta: H^2 <= delta^2; not interpolating: H^2 > delta^2;
// otherwise undecided. All comparisons on exact rationals.
SequenceVerdict verdict_of(const DistanceEnclosure& e, const Rational& delta);

}  // namespace seqi
