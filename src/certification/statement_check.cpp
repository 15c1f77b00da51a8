#include "seqi/certification/statement_check.hpp"

#include <cstdio>

#include "seqi/float_statement/float_run.hpp"
#include "seqi/numbers/display.hpp"

namespace seqi {

void add_float_run_check(RunReport& report, const Dataset& data, const Transformer<Rational>& model,
                         Setting kind, const Execution& exec, const Rational& tau, unsigned precision) {
  add_float_run_check(report, bound_float_runs(model, data, kind, tau, precision, exec.threads, statement_formats(exec)),
                      exec);
}

std::vector<FloatFormat> statement_formats(const Execution& exec) {
  std::vector<FloatFormat> formats;
  if (exec.float64_statement) formats.push_back(kBinary64);
  if (exec.float32_statement) formats.push_back(kBinary32);
  return formats;
}

namespace {

void add_one_float_run_check(RunReport& report, const FloatRunFacts& f) {
  auto& slot = f.format == kBinary32.name ? report.float32_statement : report.float_statement;
  if (!f.stated) {  // no claim, so no check
    slot = f;
    return;
  }
  report.certificate.add({f.format + " run of the rounded weights (a claim beside the exact certificate): every decision equals the "
            "exact one, outputs within delta",
            "lem:float-run", f.certified, false,
            f.certified ? "delta = " + three_digits(f.delta) + " (relative " + three_digits(f.relative_delta) + "); " +
                              std::to_string(f.decisions) + " decisions shown, " + std::to_string(f.kinks) +
                              " ReLUs at an exact kink; " + std::to_string(f.tokens_bounded) +
                              " feed-forward token bounds computed one by one, " + std::to_string(f.tokens_charged) +
                              " by layer charges (lem:float-run-sparse)"
                        : "could not be shown at " + f.failure});
  slot = f;
}

// The facts of a format the run did not ask for: nothing is claimed.
FloatRunFacts not_stated(const FloatFormat& format) {
  FloatRunFacts f;
  f.format = format.name;
  f.stated = false;
  f.failure = "not stated: not asked for in this run";
  return f;
}

}  // namespace

void add_float_run_check(RunReport& report, const std::vector<FloatRunFacts>& facts, const Execution& exec) {
  for (const FloatRunFacts& f : facts) add_one_float_run_check(report, f);
  if (!exec.float64_statement) add_one_float_run_check(report, not_stated(kBinary64));
  if (!exec.float32_statement) add_one_float_run_check(report, not_stated(kBinary32));
}

}  // namespace seqi
