// Placement reading with every place left of every shrunk token (lem:places-left in
// proofs/spread-slots.tex): a placed leader then sits on the all-inactive side of every later
// placement hat, where a float run leaves it bit for bit (lem:hat-margin).
#pragma once
#include <optional>
#include <vector>

#include "seqi/numbers/rational.hpp"

namespace seqi {

// r = n + 2^-k drawn, n = -(31/128) e1 - (31/32) e2 and k >= 1 the least with
// max_P r.P < min_x r.(eps x + C e1) over the places P and the tokens x (before the shrink);
// nullopt when no k <= 64 works. Preconditions d >= 2, eps > 0. The tokens' readings are computed on
// `threads` threads (the result does not depend on it); with token_readings, it receives r.x
// for every token x on success.
std::optional<Point> reading_with_places_left(const Point& drawn, const std::vector<Point>& places,
                                              const std::vector<Point>& tokens, const Rational& eps,
                                              const Point& C_e1, unsigned threads = 1,
                                              std::vector<Rational>* token_readings = nullptr);

}  // namespace seqi
