#include "seqi/numbers/upward.hpp"

#include <cfenv>
#include <cmath>
#include <stdexcept>

namespace seqi {

UpwardRounding::UpwardRounding() : previous_(std::fegetround()) {
  if (std::fesetround(FE_UPWARD) != 0 || std::fegetround() != FE_UPWARD)
    throw std::runtime_error("cannot set the floating-point rounding mode to upward");
}

UpwardRounding::~UpwardRounding() { std::fesetround(previous_); }

MidRad mid_rad(const Rational& q) {
  const double x = mpq_get_d(q.backend().data());  // truncation toward zero: integer-based
  return {x, std::fabs(x) * 0x1p-51 + 0x1p-1073};
}

double magnitude_up(const Rational& q) {
  const MidRad m = mid_rad(q);
  return std::fabs(m.mid) + m.rad;
}

double gamma_up(std::size_t n, double unit) {
  const double nu = static_cast<double>(n) * unit;
  if (nu > 0.25) throw std::domain_error("gamma_n needs n u <= 1/4");
  return nu * (1 + 2 * nu);
}

double lower_difference(double a, double b) { return -((-a) + b); }

}  // namespace seqi
