// One-direction float layers for the replays: every row of U is slope_k r with slope_k 0 or
// +-2^e (every built layer, lem:relu-rescaling), so fl(U_k x) = slope_k fl(r x) for one summation
// order, exactly (a power-of-two scaling is exact in binary floating point barring underflow and
// overflow), and the readings along r serve every unit.
#pragma once
#include <optional>

#include "seqi/numbers/rational.hpp"

namespace seqi {

template <class F>
struct OneDirection {
  Vec<F> r;      // canonical_direction of the rows
  Vec<F> slope;  // U_k = slope_k r exactly, each slope 0 or +-2^e
};

// r times +-2^k so that its first nonzero coordinate lies in [1, 2): rows that differ by a factor
// +-2^e (units balanced apart, or facing the other way) get one representative, so their layers
// share readings (fl(-r.x) = -fl(r.x)). r itself when r is zero, its first nonzero coordinate is
// not finite, or the scaling is not exact (it would underflow or overflow some coordinate).
template <class F>
Vec<F> canonical_direction(const Vec<F>& r);

// U's rows as slope_k r with r canonical, when every row is 0 or +-2^e times one row; nullopt
// otherwise (or when every row is zero).
template <class F>
std::optional<OneDirection<F>> one_direction(const Mat<F>& U);

}  // namespace seqi
