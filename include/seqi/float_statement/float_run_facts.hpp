// What a float statement (lem:float-run, proofs/float-run.tex) established for one run:
// a plain record, so that a certificate can hold it without the bound's machinery.
#pragma once
#include <cstddef>
#include <string>

namespace seqi {

struct FloatRunFacts {
  std::string format = "float64";  // FloatFormat::name of the run
  bool stated = true;          // false: the run asked for no such statement (verify --float-statements)
  bool certified = false;      // every decision shown equal, every output within delta
  double delta = 0;            // upper bound on |float - exact| per output coordinate (when certified)
  double relative_delta = 0;   // delta / max |exact output coordinate| (when certified; delta if that is 0)
  std::string failure;         // when !certified: "block b (feed-forward), sequence j, token i: ..."
  std::size_t decisions = 0;   // ReLU signs and argmaxes shown equal
  std::size_t kinks = 0;       // ReLUs with exact pre-activation 0 (value bound by continuity only)
  // Feed-forward (layer, token) pairs bounded one by one (lem:float-ff) and those covered by a
  // layer's charge instead (lem:float-run-sparse); their sum is layers x tokens.
  std::size_t tokens_bounded = 0, tokens_charged = 0;
};

}  // namespace seqi
