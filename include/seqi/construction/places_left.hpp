// Placement reading with every place left of every shrunk token (lem:places-left in
// proofs/spread-slots.tex): a placed leader then sits on the all-inactive side of every later
// placement hat, where a float run leaves it bit for bit (lem:hat-margin).
#pragma once
#include <functional>
#include <optional>
#include <vector>

#include "seqi/numbers/rational.hpp"

namespace seqi {

// r . x for every token x, in token order (the tokens before the shrink).
using TokenReadingsAlong = std::function<std::vector<Rational>(const Point& r)>;

// r = n + 2^-k drawn, n = -(31/128) e1 - (31/32) e2 and k >= 1 the least with
// max_P r.P < min_x r.(eps x + C e1) over the places P and the tokens x (before the shrink);
// nullopt when no k <= 64 works. Preconditions d >= 2, eps > 0. The tokens are read through
// token_readings (along n and along drawn); the rest runs on `threads` threads (the result does
// not depend on it). With token_readings_out, it receives r.x for every token x on success.
std::optional<Point> reading_with_places_left(const Point& drawn, const std::vector<Point>& places,
                                              const TokenReadingsAlong& token_readings, const Rational& eps,
                                              const Point& C_e1, unsigned threads = 1,
                                              std::vector<Rational>* token_readings_out = nullptr);

}  // namespace seqi
