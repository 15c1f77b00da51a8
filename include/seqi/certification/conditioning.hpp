// Conditioning report (proofs/conditioning.tex): how far a floating-point run of the built
// transformer is from flipping a decision. Every margin is an exact rational (printed as a
// decimal); the float runs beside it are measurements, not part of any proof.
#pragma once
#include <optional>
#include <string>
#include <vector>

#include "seqi/replay/replay_outcome.hpp"
#include "seqi/certification/lemma_p.hpp"
#include "seqi/construction/construction.hpp"

namespace seqi {

// Per phase: size of the weights and the smallest relative window of its one-direction layers,
// window half-width / largest distance of a token's reading from the window's centre
// (lem:relative-window): the cancellation a float run must get right on untouched tokens.
struct PhaseConditioning {
  std::string phase;
  Rational norm_sq = 0;         // sum of squares of the stored scalars of the phase's blocks
  Rational max_abs_weight = 0;  // largest |stored scalar| of the phase
  std::optional<Rational> relative_window;  // nullopt: no one-direction layer measured
};

struct ConditioningReport {
  Rational norm_sq = 0, max_abs_weight = 0;
  std::vector<PhaseConditioning> phases;  // separation, placement, collapse, interpolation
  // Smallest G_j / max_{u in X_j} |u|^2: a Lemma P score comparison against score size.
  std::optional<Rational> lemma_p_relative;
  // Collapse gap g / max |z| and flat-hat window df / (spread of z and target readings).
  std::optional<Rational> collapse_relative, flat_window_relative;
  std::vector<ReplayOutcome> float_runs;  // measurements only
};

// Weights per phase (the collapse attention layer counts as phase "collapse"). The blocks are
// measured on exec's threads and split among exec.sharding's processes (collective then); the
// report depends on neither.
ConditioningReport weight_conditioning(const Transformer<Rational>& model, std::optional<std::size_t> collapse_block,
                                       const Execution& exec = {});

// Adds the margins that need the construction: Lemma P (before_collapse, lemma_p) and the
// collapse and flat-hat windows (record, targets of data).
void add_construction_margins(ConditioningReport& rep, const Dataset& data, const ConstructionRecord& record,
                              const TokenState& before_collapse, const LemmaPResult& lemma_p);

// Lowers the phase's relative window to `margin` (creating the phase entry if needed).
void note_relative_window(ConditioningReport& rep, const std::string& phase, const Rational& margin);

}  // namespace seqi
