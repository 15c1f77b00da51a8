// The float statements of lem:float-run (computed in src/float_statement) as certificate checks:
// not required, so they never change `verified` (which is about the exact model); their
// outcomes are kept in the run report (RunReport::float_statement, float32_statement).
#pragma once
#include <vector>

#include "seqi/certification/run_report.hpp"
#include "seqi/float_statement/float_format.hpp"

namespace seqi {

// The formats every certification states: binary64, then binary32.
std::vector<FloatFormat> statement_formats();

// The checks with facts already computed (a FloatRunBound over statement_formats() that followed
// the certification's pass), one per format.
void add_float_run_check(RunReport& report, const std::vector<FloatRunFacts>& facts);

// tau and precision are used for softmax only; threads as bound_float_run.
void add_float_run_check(RunReport& report, const Dataset& data, const Transformer<Rational>& model,
                         Setting kind, unsigned threads, const Rational& tau = 1, unsigned precision = 128);

}  // namespace seqi
