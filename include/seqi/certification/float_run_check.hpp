// The float64 statement of lem:float-run as a certificate check: not required, so it never
// changes `verified` (which is about the exact model); its outcome is kept in cert.float_run.
#pragma once
#include "seqi/certification/certificate.hpp"
#include "seqi/certification/collapse_enclosures.hpp"

namespace seqi {

// The check with facts already computed (a FloatRunBound that followed the certification's pass).
void add_float_run_check(Certificate& cert, const FloatRunFacts& facts);

// tau, precision and collapse are used for softmax only; threads and collapse as bound_float_run.
void add_float_run_check(Certificate& cert, const Dataset& data, const Transformer<Rational>& model,
                         Setting kind, unsigned threads, const Rational& tau = 1, unsigned precision = 128,
                         const CollapseEnclosures* collapse = nullptr);

}  // namespace seqi
