// The documented limit on bit growth during evaluation: an exact forward pass stops with a
// clear error (naming the block and token) once a coordinate needs more than
// kMaxCoordinateBits bits, instead of running for hours on ever larger numbers.
#pragma once
#include <cstddef>
#include <stdexcept>
#include <string>

#include "seqi/numbers/rational.hpp"

namespace seqi {

// Numerator plus denominator bits of one coordinate (2^20: about 315,000 decimal digits).
inline constexpr std::size_t kMaxCoordinateBits = std::size_t{1} << 20;

// Thrown when an evaluation exceeds kMaxCoordinateBits; the message says where.
class BitLimitExceeded : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Numerator plus denominator bits of x (no allocation).
std::size_t coordinate_bits(const Rational& x);
// Largest coordinate_bits over the coordinates of x.
std::size_t largest_coordinate_bits(const Point& x);

// Throws BitLimitExceeded: `where` (e.g. "block 3, sequence 2, token 1") needs `bits` bits.
[[noreturn]] void throw_bit_limit(std::size_t bits, const std::string& where);

// Throws BitLimitExceeded, naming where() (called only then), when a coordinate of x needs
// more than kMaxCoordinateBits bits.
template <class Where>
void check_bit_growth(const Point& x, Where&& where) {
  if (const std::size_t bits = largest_coordinate_bits(x); bits > kMaxCoordinateBits) throw_bit_limit(bits, where());
}
template <class Where>
void check_bit_growth(const Rational& x, Where&& where) {
  if (const std::size_t bits = coordinate_bits(x); bits > kMaxCoordinateBits) throw_bit_limit(bits, where());
}

}  // namespace seqi
