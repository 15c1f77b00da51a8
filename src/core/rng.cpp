#include "seqi/core/rng.hpp"

namespace seqi {

std::uint64_t Rng::next() {
  std::uint64_t z = (state_ += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

Integer Rng::integer_in(const Integer& range) {
  const Integer span = 2 * range + 1;
  Integer raw = 0;
  // Enough random words to exceed the span by 64 bits.
  for (std::size_t bits = 0; bits < boost::multiprecision::msb(span) + 65; bits += 64)
    raw = (raw << 64) + Integer(next());
  return raw % span - range;
}

Point Rng::integer_vector(int d, const Integer& range) {
  Point v(d);
  for (int i = 0; i < d; ++i) v[i] = Rational(integer_in(range));
  return v;
}

}  // namespace seqi
