// Generic choices scored by conditioning (proofs/conditioning.tex): directions with small
// dyadic entries, leaders whose readings are most isolated, candidates compared by the
// smallest RELATIVE gap (gap / magnitude). All exact, seeded and deterministic.
#pragma once
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "seqi/construction/generic_choice.hpp"
#include "seqi/model/token_state.hpp"

namespace seqi {

// A nonzero direction with entries k / 2^bits, k uniform in [-2^bits, 2^bits]: every entry
// lies in [-1, 1] and is exact in float32 for bits <= 24 (lem:dyadic-directions).
Point dyadic_direction(Rng& rng, int d, int bits);
// The same with entries only on the coordinates `support` (distinct, in [0, d)), each nonzero:
// a reading r.x then sums support.size() products (lem:float-dot counts only those).
Point sparse_dyadic_direction(Rng& rng, int d, int bits, const std::vector<int>& support);

// Per point: distance from its reading r.x to the nearest reading of another point (0 on a
// tie); a lone point gets `lone`.
std::vector<Rational> reading_gaps(const std::vector<Point>& pts, const Point& r, const Rational& lone);
// The same from the readings t[i] = r.x_i.
std::vector<Rational> reading_gaps(const std::vector<Rational>& t, const Rational& lone);

// Per sequence j, the m[j] tokens of X_j with the largest gaps, largest first (ties: input
// order). Any m_j distinct tokens may lead (lem:leader-choice).
std::vector<std::vector<std::size_t>> most_isolated_leaders(const TokenState& c, const std::vector<Rational>& gap,
                                                            const std::vector<std::size_t>& m);

// Smallest gap between distinct sorted values divided by the largest |value| (0 on a tie;
// nullopt for fewer than two values or all values 0).
std::optional<Rational> smallest_relative_gap(std::vector<Rational> values);

// Draws `candidates` valid choices through choose_generic (each redrawn until draw() returns
// a score) and keeps the one with the largest score: restore(i) reinstates candidate i,
// 0-based. Logs "what (best of N by <score_name> <score>)". Deterministic.
void choose_best_conditioned(const std::string& what, const std::string& score_name, int candidates,
                             const Integer& initial_range, const std::function<std::optional<Rational>(const Integer&)>& draw,
                             const std::function<void(int)>& keep, const std::function<void(int)>& restore,
                             std::vector<ChoiceLog>& log);

}  // namespace seqi
