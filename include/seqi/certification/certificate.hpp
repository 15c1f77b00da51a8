// What a verification run established: each check with the lemma it cites, per-sequence
// outcomes and the counts (proof facts only; a run's float64 statement and measurements are
// beside it in RunReport). A certificate states only what was checked.
#pragma once
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "seqi/certification/counts.hpp"
#include "seqi/certification/general_facts.hpp"
#include "seqi/forward/exact_forward.hpp"
#include "seqi/certification/lemma_p.hpp"
#include "seqi/construction/construction.hpp"
#include "seqi/core/execution.hpp"
#include "seqi/model/setting.hpp"

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
  // When matches: per output token i, the index k of the target Y_j[k] it equals (the first
  // such k), so that a statement about token i can name its target (--save-property).
  std::vector<std::uint32_t> target_of{};
};

// What the softmax certificate established (Thm 1.8; lem:tau-star, lem:softmax-enclosure).
struct SoftmaxFacts {
  bool tau_unbounded = false;   // every tau > 0 works: (n_j - 1) D_j <= df for all j
  Rational tau_star_lower;      // certified 0 < tau_star_lower <= tau* (when bounded)
  std::size_t binding_sequence = 0;                  // j attaining the minimum (0-based)
  std::vector<std::optional<Rational>> tau_per_sequence;  // nullopt: no constraint from j
  Rational tau_checked;         // the temperature at which the enclosures were computed
  // Our construction: max over tokens of the distance from the collapse enclosure to the
  // hardmax value z of its leader (must be <= df). A user's model: max enclosure half-width.
  Rational max_enclosure_radius;
  Rational flat_halfwidth;      // df
  unsigned precision = 0;       // MPFR bits of the interval arithmetic
  std::size_t sequences_refined = 0;  // sequences whose enclosure needed per-token softmax weights
};

// Tokens of the first few sequences after one phase, projected on coordinates 1 and 2
// (in doubles: for figures only, never for a decision).
struct PhaseSnapshot {
  std::string phase;
  std::vector<std::vector<std::pair<double, double>>> sequences;
};

struct Certificate {
  Setting setting = Setting::hardmax;
  bool verified = false;
  std::vector<Check> checks;
  std::vector<SequenceOutcome> sequences;
  Counts counts;
  ForwardStats stats;
  std::map<std::string, std::size_t> max_bits_by_phase;  // max coordinate bits after each phase
  std::optional<ConstructionSummary> construction;       // absent for a user's model
  std::optional<LemmaPResult> lemma_p;
  std::optional<SoftmaxFacts> softmax;
  std::optional<GeneralFacts> general;  // per-sequence verdicts of a general model (--model)
  std::vector<PhaseSnapshot> snapshots;  // input, after each phase, output

  void add(Check c) { checks.push_back(std::move(c)); }
  // verified = every required check passed.
  void conclude();
};

// Compares the outputs of one sequence with its targets as sets (exact).
SequenceOutcome compare_as_sets(const std::vector<Point>& outputs, const Sequence& targets);

// Largest bit_size over all coordinates of all tokens.
std::size_t max_coordinate_bits(const TokenState& s, unsigned threads = 1);

}  // namespace seqi
