// VNN-LIB properties (the SMT-LIB subset of the VNN-COMP benchmarks) about a fixed-shape
// graph X [n, d] -> Y [n, d]: X_k and Y_k are the scalars of X and Y flattened row-major
// (k = i d + c: token i, coordinate c, both from 0). A property fixes X to one point and
// states, as VNN-COMP files do, the *unsafe* region: a verifier answers "unsat" when no
// output in the region is reachable (the claim holds) and "sat" with a counterexample when
// one is.
//
// Every number is written as the exact decimal expansion of a double (a double m 2^e has a
// finite one), so that a reader in exact arithmetic and a reader that parses to binary64 see
// the same value.
#pragma once
#include <string>
#include <vector>

#include "seqi/numbers/rational.hpp"

namespace seqi {

// The exact decimal expansion of a finite double ("-0.125", "3", "0.1000000000000000055511151231257827021181583404541015625"),
// never in exponent notation. Throws InputError on NaN or an infinity.
std::string exact_decimal(double x);

// The least double strictly above x, and the greatest strictly below (decided on exact
// rationals). Throws InputError when there is none (|x| beyond the largest double).
double double_above(const Rational& x);
double double_below(const Rational& x);

// A claim about one point input: every output coordinate Y_k lies within `radius` of centre_k.
struct BoxClaim {
  std::vector<Point> input;    // the n tokens of X (each coordinate written as its nearest double)
  std::vector<Point> centres;  // the n output tokens claimed
  Rational radius;             // >= 0
};

// The unsafe region of the claim: the disjunction over k of Y_k >= double_above(centre_k + radius)
// and Y_k <= double_below(centre_k - radius); both bounds lie strictly outside the claimed
// interval, so an output within it never meets the region. `comments` are written first,
// each line prefixed with "; ". Throws InputError when the tokens disagree in number or
// dimension or the radius is negative.
std::string vnnlib_text(const BoxClaim& claim, const std::vector<std::string>& comments);

// A witness in the layout of a VNN-COMP result file: "sat" then ((X_0 v) ... (Y_0 v) ...),
// each token's coordinates in row-major order, each value the double nearest to it.
std::string counterexample_text(const std::vector<Point>& input, const std::vector<Point>& output);

}  // namespace seqi
