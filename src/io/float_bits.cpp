#include "seqi/io/float_bits.hpp"

#include <mpfr.h>

#include <bit>
#include <string>

#include "seqi/core/input_error.hpp"

namespace seqi {
namespace {

// m * 2^e exactly.
Rational scaled_power_of_two(std::uint64_t m, int e) {
  Integer num(m);
  if (e >= 0) return Rational(Integer(num << e));
  return Rational(num) / Rational(Integer(Integer(1) << -e));
}

std::uint64_t field(std::uint64_t bits, int shift, int width) { return (bits >> shift) & ((std::uint64_t{1} << width) - 1); }

}  // namespace

const char* nonfinite_name(std::uint64_t bits, BitFormat f) {
  if (field(bits, f.mant_bits, f.exp_bits) != (std::uint64_t{1} << f.exp_bits) - 1) return nullptr;
  if (field(bits, 0, f.mant_bits)) return "NaN";
  return (bits >> (f.mant_bits + f.exp_bits)) & 1 ? "-infinity" : "+infinity";
}

Rational exact_rational_of_bits(std::uint64_t bits, BitFormat f) {
  if (const char* name = nonfinite_name(bits, f))
    throw InputError(std::string("cannot convert ") + name + " (" + f.name +
                     ") to a rational: only finite numbers are rational");
  const std::uint64_t mant = field(bits, 0, f.mant_bits);
  const std::uint64_t exp_field = field(bits, f.mant_bits, f.exp_bits);
  const bool negative = (bits >> (f.mant_bits + f.exp_bits)) & 1;
  const int bias = (1 << (f.exp_bits - 1)) - 1;
  Rational r;
  if (exp_field == 0)  // zero or subnormal: mant * 2^(1 - bias - mant_bits)
    r = scaled_power_of_two(mant, 1 - bias - f.mant_bits);
  else
    r = scaled_power_of_two(mant | (std::uint64_t{1} << f.mant_bits),
                            static_cast<int>(exp_field) - bias - f.mant_bits);
  return negative ? Rational(-r) : r;  // -0 becomes 0
}

Rational exact_rational_of_double(double x) {
  return exact_rational_of_bits(std::bit_cast<std::uint64_t>(x), kBits64);
}

Rational exact_rational_of_float(float x) {
  return exact_rational_of_bits(std::bit_cast<std::uint32_t>(x), kBits32);
}

Rational exact_rational_of_half(std::uint16_t bits) { return exact_rational_of_bits(bits, kBits16); }

double nearest_double(const Rational& x) {
  mpfr_t r;
  mpfr_init2(r, 53);
  mpfr_set_q(r, x.backend().data(), MPFR_RNDN);
  const double d = mpfr_get_d(r, MPFR_RNDN);
  mpfr_clear(r);
  return d;
}

}  // namespace seqi
