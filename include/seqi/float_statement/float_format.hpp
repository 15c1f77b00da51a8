// The IEEE formats of the float statements (lem:float-run, proofs/float-run.tex, "Arithmetic
// model"): each operation correctly rounded to nearest (unit roundoff u), an underflowing result
// off by at most eta_0/2, exp within 2 ulp (|theta| <= 4u, |zeta| <= 2 eta_0). A weight, input
// coordinate or tau is in range when it is 0 or 2^-range <= |w| <= 2^range (then it rounds with
// relative error u), and every bound the engine computes must stay below 2^range (then no float
// value of the run exceeds 2^(range + 1), far below the format's largest finite number).
#pragma once
#include <string>

namespace seqi {

struct FloatFormat {
  const char* name;  // "float64", "float32": the name in summaries, JSON and certificates
  double u;          // unit roundoff of round to nearest
  double tiny;       // eta_0: the smallest positive subnormal
  int range;         // the exponent of the range above
};

inline constexpr FloatFormat kBinary64{"float64", 0x1p-53, 0x1p-1074, 1000};
// binary32: normal from 2^-126, largest finite below 2^128.
inline constexpr FloatFormat kBinary32{"float32", 0x1p-24, 0x1p-149, 100};

}  // namespace seqi
