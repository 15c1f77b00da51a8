#include "seqi/certification/statement_check.hpp"

#include <cstdio>

#include "seqi/float_statement/float_run.hpp"
#include "seqi/numbers/display.hpp"

namespace seqi {

void add_float_run_check(RunReport& report, const Dataset& data, const Transformer<Rational>& model,
                         Setting kind, unsigned threads, const Rational& tau, unsigned precision) {
  add_float_run_check(report, bound_float_runs(model, data, kind, tau, precision, threads, statement_formats()));
}

std::vector<FloatFormat> statement_formats() { return {kBinary64, kBinary32}; }

namespace {

void add_one_float_run_check(RunReport& report, const FloatRunFacts& f) {
  report.certificate.add({f.format + " run of the rounded weights (a claim beside the exact certificate): every decision equals the "
            "exact one, outputs within delta",
            "lem:float-run", f.certified, false,
            f.certified ? "delta = " + three_digits(f.delta) + " (relative " + three_digits(f.relative_delta) + "); " +
                              std::to_string(f.decisions) + " decisions shown, " + std::to_string(f.kinks) +
                              " ReLUs at an exact kink; " + std::to_string(f.tokens_bounded) +
                              " feed-forward token bounds computed one by one, " + std::to_string(f.tokens_charged) +
                              " by layer charges (lem:float-run-sparse)"
                        : "could not be shown at " + f.failure});
  (f.format == kBinary32.name ? report.float32_statement : report.float_statement) = f;
}

}  // namespace

void add_float_run_check(RunReport& report, const std::vector<FloatRunFacts>& facts) {
  for (const FloatRunFacts& f : facts) add_one_float_run_check(report, f);
}

}  // namespace seqi
