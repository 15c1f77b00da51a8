// The float statements of lem:float-run (computed in src/float_statement) as certificate checks:
// not required, so they never change `verified` (which is about the exact model); their
// outcomes are kept in the run report (RunReport::float_statement, float32_statement).
#pragma once
#include <vector>

#include "seqi/certification/run_report.hpp"
#include "seqi/core/execution.hpp"
#include "seqi/float_statement/float_format.hpp"

namespace seqi {

// The formats a certification states, of binary64 then binary32, as exec asks (both by default).
std::vector<FloatFormat> statement_formats(const Execution& exec);

// The checks with facts already computed (a FloatRunBound over statement_formats(exec) that
// followed the certification's pass), one per format; a format exec leaves out is recorded as
// not stated, with no check.
void add_float_run_check(RunReport& report, const std::vector<FloatRunFacts>& facts, const Execution& exec);

// tau and precision are used for softmax only; exec.threads as bound_float_run.
void add_float_run_check(RunReport& report, const Dataset& data, const Transformer<Rational>& model,
                         Setting kind, const Execution& exec, const Rational& tau = 1, unsigned precision = 128);

}  // namespace seqi
