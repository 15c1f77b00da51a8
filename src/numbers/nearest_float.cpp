// scalar_from_rational<float>: a rational rounded once to the nearest binary32 (ties to even), as
// the float32 statement (lem:float-run) assumes of the weights and inputs. Rounding through a
// double would round twice.
#include <mpfr.h>

#include "seqi/numbers/scalar.hpp"

namespace seqi {

template <>
float scalar_from_rational<float>(const Rational& x) {
  mpfr_t t;
  mpfr_init2(t, 24);  // binary32's significand: exact for normal results (subnormals round again below)
  mpfr_set_q(t, x.backend().data(), MPFR_RNDN);
  const float f = mpfr_get_flt(t, MPFR_RNDN);
  mpfr_clear(t);
  return f;
}

}  // namespace seqi
