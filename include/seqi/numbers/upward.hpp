// Upper bounds in binary64 (lem:float-run): under UpwardRounding every sum and product of
// nonnegative doubles is >= its real value, so a formula built from nonnegative terms with
// + and * only evaluates to an upper bound of its real value. Translation units that use
// this are compiled with -frounding-math (no constant folding in round-to-nearest).
#pragma once
#include <cstddef>

#include "seqi/numbers/rational.hpp"

namespace seqi {

// Sets the FPU rounding mode to upward for its lifetime (restores the previous mode).
// Throws std::runtime_error when the mode cannot be set.
class UpwardRounding {
 public:
  UpwardRounding();
  ~UpwardRounding();
  UpwardRounding(const UpwardRounding&) = delete;
  UpwardRounding& operator=(const UpwardRounding&) = delete;

 private:
  int previous_;
};

// The rounding contract, checked where it is required (as CGAL checks its protected rounding
// mode): checked builds (debug builds, without NDEBUG, and the sanitizer builds, which define
// SEQI_CHECK_ROUNDING) throw std::logic_error from expect_upward_rounding() when the FPU does
// not round upward; release builds compile it to nothing. Every function documented "Requires
// UpwardRounding" calls it on entry.
#if !defined(NDEBUG) || defined(SEQI_CHECK_ROUNDING)
inline constexpr bool kRoundingChecked = true;
#else
inline constexpr bool kRoundingChecked = false;
#endif
// Throws std::logic_error naming `where` unless the rounding mode is upward (in every build).
void require_upward_rounding(const char* where);
inline void expect_upward_rounding(const char* where) {
  if constexpr (kRoundingChecked) require_upward_rounding(where);
}

inline constexpr double kUnitRoundoff = 0x1p-53;   // u of round to nearest
inline constexpr double kSubnormalMin = 0x1p-1074; // one underflowing product errs by < this

// A double x with |q - x| <= rad; rad = 2^-51 |x| + 2^-1073 (q truncated by mpq_get_d is
// within one ulp). Requires UpwardRounding. x may be infinite for huge q: callers check.
struct MidRad {
  double mid = 0, rad = 0;
};
MidRad mid_rad(const Rational& q);

// An upper bound on |q|. Requires UpwardRounding.
double magnitude_up(const Rational& q);

// An upper bound on gamma_n = n u / (1 - n u) for unit roundoff `unit`, as n u (1 + 2 n u)
// (valid for n u <= 1/2). Requires UpwardRounding. Throws std::domain_error if n u > 1/4.
double gamma_up(std::size_t n, double unit = kUnitRoundoff);

// A lower bound on a - b (for doubles a, b). Requires UpwardRounding.
double lower_difference(double a, double b);

}  // namespace seqi
