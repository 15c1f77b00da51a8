// Lemma P (lem:P): just before the collapse (A = alpha I, alpha > 0), in every sequence each
// non-leader's unique best score is with leader 1 and each leader's unique best score is with
// itself. Also yields the certified margins G_j and spreads D_j used by the softmax bound.
#pragma once
#include <optional>
#include <string>
#include <vector>

#include "seqi/construction/construction.hpp"
#include "seqi/core/execution.hpp"

namespace seqi {

struct LemmaPResult {
  bool ok = false;
  std::string failure;                 // names sequence and token when !ok
  // Per sequence: a certified lower bound on (best score - any other score) over all tokens
  // (nullopt when n_j = 1), and D_j = max_l a.x_l - min_l a.x_l.
  std::vector<std::optional<Rational>> margin;
  std::vector<Rational> spread;
  std::vector<std::size_t> attends;    // per token: the token it attends to (hardmax)
};

// O(n d) per sequence: the exact inequalities of lem:P (AM-GM, Cauchy-Schwarz and
// lem:circle-neighbours bounds). Checks that every leader stands at its place.
LemmaPResult check_lemma_p(const TokenState& before_collapse, const PlacementRecord& placement,
                           const Rational& alpha, const Point& a, const Execution& exec = {});

// O(n^2 d) per sequence: every score computed exactly; the margin is the exact gap.
LemmaPResult check_lemma_p_brute(const TokenState& before_collapse, const PlacementRecord& placement,
                                 const Rational& alpha, const Point& a, const Execution& exec = {});

}  // namespace seqi
