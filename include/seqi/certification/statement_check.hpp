// The float64 statement of lem:float-run (computed in src/float_statement) as a certificate
// check: not required, so it never changes `verified` (which is about the exact model); its
// outcome is kept in the run report (RunReport::float_statement).
#pragma once
#include "seqi/certification/run_report.hpp"

namespace seqi {

// The check with facts already computed (a FloatRunBound that followed the certification's pass).
void add_float_run_check(RunReport& report, const FloatRunFacts& facts);

// tau and precision are used for softmax only; threads as bound_float_run.
void add_float_run_check(RunReport& report, const Dataset& data, const Transformer<Rational>& model,
                         Setting kind, unsigned threads, const Rational& tau = 1, unsigned precision = 128);

}  // namespace seqi
