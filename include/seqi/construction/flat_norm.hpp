// The flat hats' share of ||theta||^2 as a function of the reading r = 2^k r_hat, estimated in
// doubles to steer the choice of r (lem:flat-scale): like rem:flat-range's float estimate, it only
// ranks candidates; what the construction needs is checked exactly afterwards.
#pragma once
#include "seqi/construction/flat_scale.hpp"

namespace seqi {

// Estimated ||theta||^2 of the flat hats of `task` at reading 2^k r_hat, each unit balanced
// (lem:relu-rescaling: about 2 sqrt(in out)). Unit i of a run has input side |r|^2 + b_i^2 and
// output column (y - v b_i') / df, b_i' its partner breakpoint; a mirrored hat has the same norms.
double flat_hats_norm_estimate(const FlatHatTask& task, const Point& r_hat, long k);

// Among the scales within `radius` of base.k (base's mirrored hats) whose run order exists and
// whose float estimate stays within max(kFlatScaleLog2Goal, base.log2_error), the one of least
// norm estimate (base itself when none is lighter); `norm` receives its estimate.
FlatScale lightest_nearby_scale(const FlatHatTask& task, const Point& r_hat, const FlatScale& base, long radius,
                                double& norm);

}  // namespace seqi
