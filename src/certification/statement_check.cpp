#include "seqi/certification/statement_check.hpp"

#include <cstdio>

#include "seqi/float_statement/float_run.hpp"
#include "seqi/numbers/display.hpp"

namespace seqi {

void add_float_run_check(RunReport& report, const Dataset& data, const Transformer<Rational>& model,
                         Setting kind, unsigned threads, const Rational& tau, unsigned precision) {
  add_float_run_check(report, bound_float_run(model, data, kind, tau, precision, threads));
}

void add_float_run_check(RunReport& report, const FloatRunFacts& f) {
  report.certificate.add({"float64 run of the rounded weights (a claim beside the exact certificate): every decision equals the "
            "exact one, outputs within delta",
            "lem:float-run", f.certified, false,
            f.certified ? "delta = " + three_digits(f.delta) + " (relative " + three_digits(f.relative_delta) + "); " +
                              std::to_string(f.decisions) + " decisions shown, " + std::to_string(f.kinks) +
                              " ReLUs at an exact kink; " + std::to_string(f.tokens_bounded) +
                              " feed-forward token bounds computed one by one, " + std::to_string(f.tokens_charged) +
                              " by layer charges (lem:float-run-sparse)"
                        : "could not be shown at " + f.failure});
  report.float_statement = f;
}

}  // namespace seqi
