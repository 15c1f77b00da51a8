// What a verification run established: each check with the lemma it cites, per-sequence
// outcomes and the counts. A certificate states only what was checked.
#pragma once
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "seqi/certification/counts.hpp"
#include "seqi/certification/exact_forward.hpp"
#include "seqi/certification/lemma_p.hpp"
#include "seqi/construction/construction.hpp"

namespace seqi {

struct Check {
  std::string name;
  std::string lemma;    // label in proofs/construction.tex
  bool passed = false;
  bool required = true; // a failed required check means "not verified"
  std::string detail;
};

struct SequenceOutcome {
  std::size_t n = 0, m = 0;
  bool matches = false;   // output set equals Y_j
  std::string detail;     // first discrepancy when !matches
};

struct SoftmaxFacts;  // softmax-only results (certification/softmax.hpp)

struct Certificate {
  std::string setting;  // "hardmax" or "softmax"
  bool verified = false;
  std::vector<Check> checks;
  std::vector<SequenceOutcome> sequences;
  Counts counts;
  ForwardStats stats;
  std::map<std::string, std::size_t> max_bits_by_phase;  // max coordinate bits after each phase
  std::optional<ConstructionRecord> record;              // absent for a user's model
  std::optional<LemmaPResult> lemma_p;

  void add(Check c) { checks.push_back(std::move(c)); }
  // verified = every required check passed.
  void conclude();
};

// Compares the outputs of one sequence with its targets as sets (exact).
SequenceOutcome compare_as_sets(const std::vector<Point>& outputs, const Sequence& targets);

// Largest bit_size over all coordinates of all tokens.
std::size_t max_coordinate_bits(const TokenState& s);

// Exact hardmax certification of our construction (Thm 1.6). `brute` recomputes every
// attention score for Lemma P instead of using the O(n d) bounds.
Certificate certify_construction_hardmax(const Dataset& data, const Construction& built, bool brute);

// Exact hardmax verification of any model (e.g. a user's): T(X_j) = Y_j for every j.
Certificate certify_model_hardmax(const Dataset& data, const Transformer<Rational>& model);

}  // namespace seqi
