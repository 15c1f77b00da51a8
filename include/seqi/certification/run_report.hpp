// What one verification run produced, in three parts that never mix:
//  - the certificate: the proof facts (exact arithmetic and outward-rounded intervals);
//    `verified` depends on its required checks alone;
//  - the float64 statement (lem:float-run, src/float_statement): a second claim, proved or not,
//    that never changes `verified` (its check in the certificate is not required);
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
  std::optional<FloatRunFacts> float_statement;  // absent when the run stopped before it was bounded
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
