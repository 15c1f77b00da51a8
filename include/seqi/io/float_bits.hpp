// Exact conversions between IEEE 754 binary floats (given by their bit patterns) and
// rationals: a float m * 2^e denotes exactly m * 2^e, never a rounded decimal.
#pragma once
#include <cstdint>

#include "seqi/numbers/rational.hpp"

namespace seqi {

// An IEEE binary format as stored bits: mantissa bits and exponent bits (sign bit above them).
// Not float_statement/float_format.hpp's FloatFormat (rounding constants of a float run).
struct BitFormat {
  int mant_bits;
  int exp_bits;
  const char* name;  // for messages: "double", "float", "half", "bfloat16"
};
inline constexpr BitFormat kBits64{52, 11, "double"};
inline constexpr BitFormat kBits32{23, 8, "float"};
inline constexpr BitFormat kBits16{10, 5, "half"};
inline constexpr BitFormat kBitsBfloat16{7, 8, "bfloat16"};

// "NaN", "+infinity" or "-infinity" for those bit patterns, else nullptr.
const char* nonfinite_name(std::uint64_t bits, BitFormat f);

// The exact value of a finite bit pattern (subnormals included; -0 gives 0).
// Throws InputError on NaN and infinities.
Rational exact_rational_of_bits(std::uint64_t bits, BitFormat f);

// The exact value of x: m * 2^e with integers m, e. Throw InputError on NaN and infinities.
Rational exact_rational_of_double(double x);
Rational exact_rational_of_float(float x);
// IEEE 754 binary16 given by its bit pattern (for '<f2' and F16).
Rational exact_rational_of_half(std::uint16_t bits);

// The unsigned integer stored in `size` (<= 8) bytes at p, in the given byte order.
inline std::uint64_t load_unsigned(const unsigned char* p, int size, bool big_endian) {
  std::uint64_t v = 0;
  for (int k = 0; k < size; ++k) v = (v << 8) | p[big_endian ? k : size - 1 - k];
  return v;
}

// The double nearest to x (ties to even; MPFR). Exact when x is a double. Below 2^-1022
// the result may be rounded twice (subnormal range); export only, never a decision.
double nearest_double(const Rational& x);

}  // namespace seqi
