// What the verification of a general (user) model established, per sequence
// (lem:general-verdict, lem:refinement).
#pragma once
#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "seqi/numbers/rational.hpp"

namespace seqi {

struct GeneralSequenceReport {
  std::string verdict;                    // exact | within delta | not interpolating | undecided within budget
  Rational hausdorff_sq_lo, hausdorff_sq_hi;  // certified enclosure of the squared Hausdorff distance
  Rational loss_lo, loss_hi;              // enclosure of max_o min_y |o - y|^2
  std::string detail;                     // witness, or block and token left undecided
  unsigned precision = 0;                 // bits of the deciding (or last) pass; 0: exact arithmetic
  std::size_t passes = 0;                 // forward passes run (1: no refinement needed)
  std::size_t branched_units = 0;         // undecided ReLUs settled by branching (last pass)
  std::size_t interval_units = 0;         // undecided ReLUs enclosed by interval ReLU (last pass)
  Rational enclosure_radius;              // max half-width of an output coordinate enclosure (last pass)
  std::size_t bisection_cells = 0;        // cells of the deciding bisection (0: not bisected; lem:bisection)
};

struct GeneralFacts {
  std::string attention;         // "hardmax" or "softmax"
  std::optional<Rational> tau;   // softmax temperature
  Rational tolerance;            // delta (0 without --tolerance)
  unsigned precision = 0;        // first pass precision (softmax)
  unsigned refinements = 0;      // budget: precision doublings after the first pass
  std::size_t branch_limit = 0;  // budget: undecided ReLUs per token and layer branched on
  std::size_t bisections = 0;    // budget: cell splits per sequence (lem:bisection)
  std::vector<GeneralSequenceReport> sequences;
  Rational loss_lo, loss_hi;     // mean over sequences of the loss terms
  std::size_t sequences_refined = 0;   // needed more than one pass
  std::size_t budget_exhausted = 0;    // still undecided after the whole budget
  std::size_t sequences_bisected = 0;  // reached bisection (lem:bisection)
  // The theorem's architecture class (information only, never part of VERIFIED).
  std::size_t width = 0, rank_A = 0, rank_V = 0;
  bool width_in_class = false, rank_in_class = false;
};

}  // namespace seqi
