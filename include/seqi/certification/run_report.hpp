// What one verification run produced, in three parts that never mix:
//  - the certificate: the proof facts (exact arithmetic and outward-rounded intervals);
//    `verified` depends on its required checks alone;
//  - the float64 and float32 statements (lem:float-run, src/float_statement): claims beside the
//    certificate, proved or not, that never change `verified` (their checks are not required);
//  - the measurements: the weights' conditioning and the float64/float32 replays
//    (src/replay), never part of any proof.
// The summary, the JSON and the LaTeX certificate are written from it (src/report).
#pragma once
#include <optional>

#include "seqi/certification/certificate.hpp"
#include "seqi/certification/conditioning.hpp"
#include "seqi/core/execution.hpp"
#include "seqi/float_statement/float_run_facts.hpp"

namespace seqi {

struct RunReport {
  Certificate certificate;
  // Absent when the run stopped before it was bounded.
  std::optional<FloatRunFacts> float_statement;    // binary64
  std::optional<FloatRunFacts> float32_statement;  // binary32
  ConditioningReport measurements;
};

// Exact hardmax certification of our construction (Thm 1.6). `brute` recomputes every
// attention score for Lemma P instead of using the O(n d) bounds.
// exec: progress of the phases (blocks and sequences counted) and threads for per-sequence work.
RunReport certify_construction_hardmax(const Dataset& data, const Construction& built, bool brute,
                                       const Execution& exec = {});

struct SoftmaxOptions {
  std::optional<Rational> tau;  // default: tau_star_lower / 2 (1 when tau* is unbounded)
  unsigned precision_bits = 0;  // 0: chosen from the data
  bool brute = false;           // per-token softmax enclosures and brute Lemma P
};

// Softmax certification of our construction (Thm 1.8): certified tau* lower bound, then
// enclosures at tau carried exactly through the flat hats.
RunReport certify_construction_softmax(const Dataset& data, const Construction& built, const SoftmaxOptions& opt,
                                       const Execution& exec = {});

// Exact hardmax verification of any model (e.g. a user's): T(X_j) = Y_j for every j.
RunReport certify_model_hardmax(const Dataset& data, const Transformer<Rational>& model);

}  // namespace seqi
