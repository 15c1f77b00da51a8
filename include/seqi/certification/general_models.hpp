// Verification of any model (a user's, or imported) against a dataset, with a verdict per
// sequence: exact, within delta, not interpolating, or undecided within budget
// (lem:general-verdict). Hardmax: the exact forward pass. Softmax at tau: enclosures
// (lem:general-attention, lem:ff-signs), refined until decided or the budget is spent
// (lem:refinement).
#pragma once
#include <optional>

#include "seqi/certification/run_report.hpp"

namespace seqi {

struct GeneralOptions {
  std::optional<Rational> tau;   // required for softmax
  Rational tolerance = 0;        // delta >= 0
  unsigned precision_bits = 128; // first softmax pass
  unsigned refinements = 3;      // precision doublings after the first pass
  std::size_t branch_limit = 4;  // undecided ReLUs per token and layer split into sign cases
  std::size_t bisections = 8;    // cell splits per sequence still undecided at the last precision
};

RunReport certify_general_hardmax(const Dataset& data, const Transformer<Rational>& model, const GeneralOptions& opt);
RunReport certify_general_softmax(const Dataset& data, const Transformer<Rational>& model, const GeneralOptions& opt);

}  // namespace seqi
