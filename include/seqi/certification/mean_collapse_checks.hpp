// The mean-collapse construction's certificate (lem:mean-collapse), hardmax and softmax alike.
#pragma once
#include "seqi/certification/run_report.hpp"

namespace seqi {

// Block 1's attention is (0, 0, v a^T) with the record's v and a, z_j = a . mu_j, and the
// collapse values and runs of lem:collapse and lem:run-interpolation. Returns whether the layer
// and the values hold (the run checks are added either way when the layer does).
bool add_mean_collapse_checks(Certificate& cert, const Dataset& data, const Construction& built);

// Precondition: built.record.mean_collapse. softmax: the softmax setting's options (nullptr:
// hardmax). Every attention layer has A = 0, so the pass is exact in both settings.
RunReport certify_mean_collapse(const Dataset& data, const Construction& built, const SoftmaxOptions* softmax,
                                const Execution& exec = {});

}  // namespace seqi
