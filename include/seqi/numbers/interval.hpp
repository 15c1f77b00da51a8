// Rigorous outward-rounded interval arithmetic (a thin RAII wrapper over MPFI).
//
// Every operation returns an interval guaranteed to contain the exact real result
// for all real inputs in the operand intervals. Endpoints are MPFR binary floats;
// lower()/upper() convert them to exact Rationals, and the predicates compare
// endpoints against Rationals exactly (no rounding anywhere in a decision).
//
// Precision is carried per object: the constructor takes it, binary operations
// produce max(precision of operands), mixed Interval/Rational operations use the
// Interval's precision, unary functions keep the operand's precision. No global
// MPFR/MPFI state (default precision, exponent range) is read for results or changed.
//
// Invariant: both endpoints are finite (never NaN or infinite). An operation whose
// enclosure would need an infinite endpoint throws std::overflow_error instead.
#pragma once
#include <mpfi.h>

#include <string>
#include <vector>

#include "seqi/numbers/rational.hpp"

namespace seqi {

class Interval {
 public:
  // Smallest enclosure of x at the given precision (endpoints x rounded down / up).
  // Throws std::invalid_argument if precision_bits is outside MPFR's allowed range.
  Interval(const Rational& x, unsigned precision_bits);

  // Enclosure [lo rounded down, hi rounded up]. Throws std::invalid_argument if lo > hi.
  static Interval hull(const Rational& lo, const Rational& hi, unsigned precision_bits);

  Interval(const Interval& other);
  Interval(Interval&& other) noexcept;
  Interval& operator=(const Interval& other);
  Interval& operator=(Interval&& other) noexcept;
  ~Interval();

  unsigned precision() const;

  // Exact rational values of the endpoints.
  Rational lower() const;
  Rational upper() const;
  // A rational >= (upper - lower) / 2 (here: exactly that value).
  Rational radius_upper() const;

  // Exact decisions.
  bool contains(const Rational& x) const;           // lower() <= x <= upper()
  bool certainly_less(const Rational& x) const;     // upper() < x
  bool certainly_greater(const Rational& x) const;  // lower() > x
  bool subset_of(const Rational& lo, const Rational& hi) const;  // lo <= lower() && upper() <= hi
  bool contains_zero() const;

  friend Interval operator+(const Interval& a, const Interval& b);
  friend Interval operator-(const Interval& a, const Interval& b);
  friend Interval operator*(const Interval& a, const Interval& b);
  // Throws std::domain_error if b contains 0.
  friend Interval operator/(const Interval& a, const Interval& b);
  friend Interval operator-(const Interval& a);

  friend Interval exp(const Interval& x);
  friend Interval log(const Interval& x);
  friend Interval sqr(const Interval& x);
  friend Interval sum(const std::vector<Interval>& xs);

 private:
  explicit Interval(unsigned precision_bits);  // uninitialised value ([NaN, NaN])
  void check_finite(const char* what) const;

  mpfi_t v_;
};

// Mixed operations: the Rational is first enclosed at the Interval's precision.
Interval operator+(const Interval& a, const Rational& b);
Interval operator+(const Rational& a, const Interval& b);
Interval operator-(const Interval& a, const Rational& b);
Interval operator-(const Rational& a, const Interval& b);
Interval operator*(const Interval& a, const Rational& b);
Interval operator*(const Rational& a, const Interval& b);
Interval operator/(const Interval& a, const Rational& b);  // throws std::domain_error if b == 0
Interval operator/(const Rational& a, const Interval& b);  // throws std::domain_error if b contains 0

Interval& operator+=(Interval& a, const Interval& b);
Interval& operator-=(Interval& a, const Interval& b);
Interval& operator*=(Interval& a, const Interval& b);
Interval& operator/=(Interval& a, const Interval& b);
Interval& operator+=(Interval& a, const Rational& b);
Interval& operator-=(Interval& a, const Rational& b);
Interval& operator*=(Interval& a, const Rational& b);
Interval& operator/=(Interval& a, const Rational& b);

// Enclosure of exp over x. Throws std::overflow_error if the upper bound overflows
// MPFR's exponent range. For very negative x the lower endpoint may be exactly 0
// (MPFR underflow, rounded down) while the upper endpoint stays > 0.
Interval exp(const Interval& x);

// Enclosure of the natural logarithm over x. Precondition lower() > 0; throws
// std::domain_error otherwise.
Interval log(const Interval& x);

// Enclosure of {x^2 : x in x} (lower endpoint 0 when x contains 0).
Interval sqr(const Interval& x);

// Enclosure of the sum; each endpoint is the correctly rounded (down / up) sum of
// the operands' endpoints at max precision. Throws std::invalid_argument if empty.
Interval sum(const std::vector<Interval>& xs);

// "[lo, hi]" in decimal scientific notation with `digits` significant digits; lo is
// rounded down and hi rounded up, so the printed interval contains the value.
// Throws std::invalid_argument if digits < 1.
std::string to_string(const Interval& x, int digits = 17);

}  // namespace seqi
