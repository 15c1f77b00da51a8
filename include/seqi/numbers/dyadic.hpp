// Powers of two: exact rescalings that are also exact in binary floating point.
#pragma once
#include "seqi/numbers/rational.hpp"

namespace seqi {

// 2^k exactly (k may be negative).
Rational pow2(long k);

// x * 2^k in place, exactly (k may be negative); cheaper than multiplying by pow2(k).
void scale_by_pow2(Rational& x, long k);

// floor(log2 x) for x > 0: the k with 2^k <= x < 2^(k+1).
long floor_log2(const Rational& x);

// The largest m 2^k <= x with m an integer below 2^bits (x > 0, bits >= 1): x's leading `bits`
// bits. Within a factor 1 - 2^(1-bits) of x, and 1 / result has an odd denominator below 2^bits.
Rational leading_bits(const Rational& x, int bits);

// The power of two 2^k nearest to sqrt(x) in log scale, k = round(log2(x) / 2) up to one
// step (x > 0): used to balance two factors of a product exactly.
Rational pow2_near_sqrt(const Rational& x);

}  // namespace seqi
