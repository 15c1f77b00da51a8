// The common case of parse_rational (rational.hpp) without temporaries, for large datasets
// (e.g. pixels k/255 as strings).
#pragma once
#include <string_view>

#include "seqi/numbers/rational.hpp"

namespace seqi {

// Sets x to "[-]p" or "[-]p/q" (p and q of at most 18 digits, q != 0, nothing else in the text)
// in lowest terms and returns true; returns false and leaves x unchanged for every other text.
// Where it returns true, parse_rational gives the same value.
bool read_small_ratio(std::string_view text, Rational& x);

}  // namespace seqi
