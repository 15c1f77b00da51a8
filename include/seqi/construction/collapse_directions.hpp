// Candidate collapse directions a for the mean collapse (lem:mean-collapse, proofs/mean-collapse.tex):
// drawn (centred on the means' centroid or plain), planned exactly (N <= d), or fitted by least
// squares; and the score that ranks draws. Choices only: the collapse values they give are
// checked exactly afterwards.
#pragma once
#include <optional>
#include <vector>

#include "seqi/core/rng.hpp"
#include "seqi/numbers/rational.hpp"

namespace seqi {

// x rounded toward 0 to a multiple of 2^-bits.
Rational truncated_dyadic(const Rational& x, int bits);

// A drawn dyadic direction w with its component along the centroid c removed (then rounded to a
// dyadic): the readings a . mu_j then lie around 0, so their gaps are large relative to max |z|.
Point centred_direction(Rng& rng, int d, int bits, const Point& c);

// Planned collapse values (N <= d): the least-norm a with (mu_j - c) . a = t_j, c . a = 0, where
// t = (i - (N-1)/2) g for the sequence at position i of `order`, rounded to a dyadic fine enough
// that every value moves by less than g / 514; nullopt when the means' differences and c are
// dependent (or N > d).
std::optional<Point> planned_direction(const std::vector<Point>& means, const Point& c,
                                       const std::vector<std::size_t>& order, const Rational& g);

// Any N, targets repeating: the direction (in doubles, then a dyadic, centred on c) that best
// separates the sequences' classes (`label[j]`, the index of its target among the distinct
// ones) relative to their spread within a class (Fisher's discriminant): sequences with one
// target tend to read close together, so they share runs. nullopt when no class has two
// sequences, there is one class, or the problem is degenerate.
std::optional<Point> discriminant_direction(const std::vector<Point>& means, const Point& c,
                                            const std::vector<std::size_t>& label);

// Score of a collapse direction (lem:relative-margins): (g / max |z|) (g / (|a|_inf reach)), g the
// smallest gap of the values z_j = a . mu_j and reach = max_j |mu_j|_1: the flat hats' relative
// window times the collapse's resolution. nullopt when two values tie.
std::optional<Rational> collapse_score(const Point& a, const std::vector<Point>& means, const Rational& reach);

// |x|_1.
Rational l1_norm(const Point& x);

}  // namespace seqi
