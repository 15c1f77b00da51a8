#include "seqi/numbers/upward.hpp"

#include <cfenv>
#include <cmath>
#include <stdexcept>
#include <string>

namespace seqi {

UpwardRounding::UpwardRounding() : previous_(std::fegetround()) {
  if (std::fesetround(FE_UPWARD) != 0 || std::fegetround() != FE_UPWARD)
    throw std::runtime_error("cannot set the floating-point rounding mode to upward");
}

UpwardRounding::~UpwardRounding() { std::fesetround(previous_); }

void require_upward_rounding(const char* where) {
  if (std::fegetround() != FE_UPWARD)
    throw std::logic_error(std::string(where) + " requires upward rounding (seqi::UpwardRounding), and the "
                           "floating-point rounding mode is not upward: an internal error of seqi");
}

MidRad mid_rad(const Rational& q) {
  expect_upward_rounding("mid_rad");
  const double x = mpq_get_d(q.backend().data());  // truncation toward zero: integer-based
  return {x, std::fabs(x) * 0x1p-51 + 0x1p-1073};
}

double magnitude_up(const Rational& q) {
  const MidRad m = mid_rad(q);
  return std::fabs(m.mid) + m.rad;
}

double gamma_up(std::size_t n, double unit) {
  expect_upward_rounding("gamma_up");
  const double nu = static_cast<double>(n) * unit;
  if (nu > 0.25) throw std::domain_error("gamma_n needs n u <= 1/4");
  return nu * (1 + 2 * nu);
}

double lower_difference(double a, double b) {
  expect_upward_rounding("lower_difference");
  return -((-a) + b);
}

}  // namespace seqi
