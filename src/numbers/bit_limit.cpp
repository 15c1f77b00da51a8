#include "seqi/numbers/bit_limit.hpp"

#include <algorithm>

namespace seqi {

std::size_t coordinate_bits(const Rational& x) {
  const mpq_srcptr q = x.backend().data();
  return mpz_sizeinbase(mpq_numref(q), 2) + mpz_sizeinbase(mpq_denref(q), 2);
}

std::size_t largest_coordinate_bits(const Point& x) {
  std::size_t most = 0;
  for (Eigen::Index i = 0; i < x.size(); ++i) most = std::max(most, coordinate_bits(x[i]));
  return most;
}

void throw_bit_limit(std::size_t bits, const std::string& where) {
  throw BitLimitExceeded(where + ": a coordinate grew to " + std::to_string(bits) + " bits, beyond the limit of " +
                         std::to_string(kMaxCoordinateBits) +
                         " bits per coordinate during evaluation; the parameters or inputs are too large "
                         "(scale them down, or check the model's weights)");
}

}  // namespace seqi
