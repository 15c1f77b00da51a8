// Isolation of one point's reading (the precondition of lem:hat).
#pragma once
#include <cstddef>
#include <functional>
#include <optional>
#include <vector>

#include "seqi/numbers/rational.hpp"

namespace seqi {

// min(1, min |t[i] - t_q|) over the points i that are not q, from the readings t[i] = r . x_i and
// t_q = r . q; nullopt when some other point has exactly the reading of q. is_q(i): point i
// equals q (asked only of points whose reading lies within the gap found so far).
std::optional<Rational> isolation_gap(const std::vector<Rational>& t, const Rational& t_q,
                                      const std::function<bool(std::size_t)>& is_q);

}  // namespace seqi
