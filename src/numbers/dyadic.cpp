#include "seqi/numbers/dyadic.hpp"

namespace seqi {

Rational pow2(long k) {
  Integer p = 1;
  p <<= static_cast<unsigned>(k < 0 ? -k : k);
  return k < 0 ? Rational(Integer(1), p) : Rational(p);
}

void scale_by_pow2(Rational& x, long k) {
  const mpq_ptr q = x.backend().data();
  if (k >= 0)
    mpq_mul_2exp(q, q, static_cast<mp_bitcnt_t>(k));
  else
    mpq_div_2exp(q, q, static_cast<mp_bitcnt_t>(-k));
}

long floor_log2(const Rational& x) {
  const Integer num = numerator(x), den = denominator(x);
  long k = static_cast<long>(boost::multiprecision::msb(num)) - static_cast<long>(boost::multiprecision::msb(den));
  // Now 2^(k-1) < x < 2^(k+1): one comparison fixes k.
  if (x < pow2(k)) --k;
  return k;
}

Rational leading_bits(const Rational& x, int bits) {
  const long shift = bits - 1 - floor_log2(x);  // x 2^shift in [2^(bits-1), 2^bits)
  Rational scaled = x;
  scale_by_pow2(scaled, shift);
  Rational m(Integer(numerator(scaled) / denominator(scaled)));
  scale_by_pow2(m, -shift);
  return m;
}

Rational pow2_near_sqrt(const Rational& x) { return pow2(floor_log2(x) / 2); }

}  // namespace seqi
