#include "seqi/numbers/interval.hpp"

#include <algorithm>
#include <stdexcept>

namespace seqi {
namespace {

mpfr_prec_t checked_precision(unsigned precision_bits) {
  if (precision_bits < static_cast<unsigned long>(MPFR_PREC_MIN) ||
      static_cast<unsigned long>(precision_bits) > static_cast<unsigned long>(MPFR_PREC_MAX))
    throw std::invalid_argument("Interval: precision out of MPFR's range");
  return static_cast<mpfr_prec_t>(precision_bits);
}

mpq_srcptr q_of(const Rational& x) { return x.backend().data(); }

// Exact value of a finite MPFR number: mantissa * 2^exponent.
Rational exact_rational(mpfr_srcptr f) {
  Rational r;  // 0
  if (mpfr_zero_p(f)) return r;
  mpz_t m;
  mpz_init(m);
  mpfr_exp_t e = mpfr_get_z_2exp(m, f);
  mpq_ptr q = r.backend().data();
  mpq_set_z(q, m);
  mpz_clear(m);
  if (e > 0)
    mpq_mul_2exp(q, q, static_cast<mp_bitcnt_t>(e));
  else if (e < 0)
    mpq_div_2exp(q, q, static_cast<mp_bitcnt_t>(-e));  // canonicalises
  return r;
}

// Directed-rounding decimal rendering of one endpoint; zero prints unsigned.
std::string render(mpfr_srcptr f, int digits, bool round_up) {
  mpfr_t plus_zero;
  mpfr_init2(plus_zero, MPFR_PREC_MIN);
  mpfr_set_zero(plus_zero, 1);
  if (mpfr_zero_p(f)) f = plus_zero;
  char* buf = nullptr;
  int n = round_up ? mpfr_asprintf(&buf, "%.*RUe", digits - 1, f)
                   : mpfr_asprintf(&buf, "%.*RDe", digits - 1, f);
  mpfr_clear(plus_zero);
  if (n < 0 || buf == nullptr) throw std::runtime_error("to_string(Interval): formatting failed");
  std::string s(buf);
  mpfr_free_str(buf);
  return s;
}

}  // namespace

// ---- construction / lifetime -------------------------------------------------

Interval::Interval(unsigned precision_bits) { mpfi_init2(v_, checked_precision(precision_bits)); }

Interval::Interval(const Rational& x, unsigned precision_bits) : Interval(precision_bits) {
  mpfi_set_q(v_, q_of(x));  // left = x rounded down, right = x rounded up
  check_finite("Interval(Rational)");
}

Interval Interval::hull(const Rational& lo, const Rational& hi, unsigned precision_bits) {
  if (lo > hi) throw std::invalid_argument("Interval::hull: lo > hi");
  Interval r(precision_bits);
  mpfi_interv_q(r.v_, q_of(lo), q_of(hi));
  r.check_finite("Interval::hull");
  return r;
}

Interval::Interval(const Interval& other) {
  mpfi_init2(v_, mpfi_get_prec(other.v_));
  mpfi_set(v_, other.v_);  // same precision: exact
}

Interval::Interval(Interval&& other) noexcept {
  mpfi_init2(v_, MPFR_PREC_MIN);
  mpfi_swap(v_, other.v_);
  mpfi_set_ui(other.v_, 0);  // leave the moved-from object a valid (exact zero) interval
}

Interval& Interval::operator=(const Interval& other) {
  if (this != &other) {
    mpfi_set_prec(v_, mpfi_get_prec(other.v_));
    mpfi_set(v_, other.v_);
  }
  return *this;
}

Interval& Interval::operator=(Interval&& other) noexcept {
  if (this != &other) mpfi_swap(v_, other.v_);
  return *this;
}

Interval::~Interval() { mpfi_clear(v_); }

void Interval::check_finite(const char* what) const {
  if (mpfr_nan_p(&v_->left) || mpfr_nan_p(&v_->right))
    throw std::domain_error(std::string(what) + ": result is not a number");
  if (!mpfr_number_p(&v_->left) || !mpfr_number_p(&v_->right))
    throw std::overflow_error(std::string(what) + ": enclosure exceeds the floating-point range");
}

// ---- queries -----------------------------------------------------------------

unsigned Interval::precision() const { return static_cast<unsigned>(mpfi_get_prec(v_)); }

Rational Interval::lower() const { return exact_rational(&v_->left); }
Rational Interval::upper() const { return exact_rational(&v_->right); }
Rational Interval::radius_upper() const { return (upper() - lower()) / 2; }

// mpfr_cmp_q compares exactly (endpoints are never NaN).
bool Interval::contains(const Rational& x) const {
  return mpfr_cmp_q(&v_->left, q_of(x)) <= 0 && mpfr_cmp_q(&v_->right, q_of(x)) >= 0;
}
bool Interval::certainly_less(const Rational& x) const { return mpfr_cmp_q(&v_->right, q_of(x)) < 0; }
bool Interval::certainly_greater(const Rational& x) const { return mpfr_cmp_q(&v_->left, q_of(x)) > 0; }
bool Interval::subset_of(const Rational& lo, const Rational& hi) const {
  return mpfr_cmp_q(&v_->left, q_of(lo)) >= 0 && mpfr_cmp_q(&v_->right, q_of(hi)) <= 0;
}
bool Interval::contains_zero() const { return mpfr_sgn(&v_->left) <= 0 && mpfr_sgn(&v_->right) >= 0; }

// ---- arithmetic --------------------------------------------------------------

namespace {
unsigned max_prec(const Interval& a, const Interval& b) { return std::max(a.precision(), b.precision()); }
}  // namespace

Interval operator+(const Interval& a, const Interval& b) {
  Interval r(max_prec(a, b));
  mpfi_add(r.v_, a.v_, b.v_);
  r.check_finite("Interval +");
  return r;
}

Interval operator-(const Interval& a, const Interval& b) {
  Interval r(max_prec(a, b));
  mpfi_sub(r.v_, a.v_, b.v_);
  r.check_finite("Interval -");
  return r;
}

Interval operator*(const Interval& a, const Interval& b) {
  Interval r(max_prec(a, b));
  mpfi_mul(r.v_, a.v_, b.v_);
  r.check_finite("Interval *");
  return r;
}

Interval operator/(const Interval& a, const Interval& b) {
  if (b.contains_zero()) throw std::domain_error("Interval /: divisor contains 0");
  Interval r(max_prec(a, b));
  mpfi_div(r.v_, a.v_, b.v_);
  r.check_finite("Interval /");
  return r;
}

Interval operator-(const Interval& a) {
  Interval r(a.precision());
  mpfi_neg(r.v_, a.v_);  // exact at equal precision
  return r;
}

Interval operator+(const Interval& a, const Rational& b) { return a + Interval(b, a.precision()); }
Interval operator+(const Rational& a, const Interval& b) { return Interval(a, b.precision()) + b; }
Interval operator-(const Interval& a, const Rational& b) { return a - Interval(b, a.precision()); }
Interval operator-(const Rational& a, const Interval& b) { return Interval(a, b.precision()) - b; }
Interval operator*(const Interval& a, const Rational& b) { return a * Interval(b, a.precision()); }
Interval operator*(const Rational& a, const Interval& b) { return Interval(a, b.precision()) * b; }
Interval operator/(const Interval& a, const Rational& b) {
  if (b == 0) throw std::domain_error("Interval /: division by zero");
  return a / Interval(b, a.precision());
}
Interval operator/(const Rational& a, const Interval& b) { return Interval(a, b.precision()) / b; }

Interval& operator+=(Interval& a, const Interval& b) { return a = a + b; }
Interval& operator-=(Interval& a, const Interval& b) { return a = a - b; }
Interval& operator*=(Interval& a, const Interval& b) { return a = a * b; }
Interval& operator/=(Interval& a, const Interval& b) { return a = a / b; }
Interval& operator+=(Interval& a, const Rational& b) { return a = a + b; }
Interval& operator-=(Interval& a, const Rational& b) { return a = a - b; }
Interval& operator*=(Interval& a, const Rational& b) { return a = a * b; }
Interval& operator/=(Interval& a, const Rational& b) { return a = a / b; }

// ---- elementary functions ----------------------------------------------------

Interval exp(const Interval& x) {
  Interval r(x.precision());
  mpfi_exp(r.v_, x.v_);  // [exp(lo) rounded down, exp(hi) rounded up]; underflow gives lo = +0
  r.check_finite("exp(Interval)");
  return r;
}

Interval log(const Interval& x) {
  if (mpfr_sgn(&x.v_->left) <= 0) throw std::domain_error("log(Interval): interval not strictly positive");
  Interval r(x.precision());
  mpfi_log(r.v_, x.v_);
  r.check_finite("log(Interval)");
  return r;
}

Interval sqr(const Interval& x) {
  Interval r(x.precision());
  mpfi_sqr(r.v_, x.v_);  // the range of x^2, not x * x
  r.check_finite("sqr(Interval)");
  return r;
}

Interval sum(const std::vector<Interval>& xs) {
  if (xs.empty()) throw std::invalid_argument("sum(Interval): empty vector");
  unsigned prec = 0;
  std::vector<mpfr_ptr> lefts, rights;
  lefts.reserve(xs.size());
  rights.reserve(xs.size());
  for (const Interval& x : xs) {
    prec = std::max(prec, x.precision());
    // mpfr_sum only reads its inputs; the const_cast adapts to its signature.
    lefts.push_back(const_cast<mpfr_ptr>(&x.v_->left));
    rights.push_back(const_cast<mpfr_ptr>(&x.v_->right));
  }
  Interval r(prec);
  // mpfr_sum is correctly rounded (MPFR >= 4), so directed rounding gives an enclosure.
  mpfr_sum(&r.v_->left, lefts.data(), xs.size(), MPFR_RNDD);
  mpfr_sum(&r.v_->right, rights.data(), xs.size(), MPFR_RNDU);
  // MPFI's signed-zero convention: lower endpoint never -0, upper never +0.
  if (mpfr_zero_p(&r.v_->left)) mpfr_set_zero(&r.v_->left, 1);
  if (mpfr_zero_p(&r.v_->right)) mpfr_set_zero(&r.v_->right, -1);
  r.check_finite("sum(Interval)");
  return r;
}

std::string to_string(const Interval& x, int digits) {
  if (digits < 1) throw std::invalid_argument("to_string(Interval): digits < 1");
  // The endpoints are binary floats of x's precision: setting them from their exact rational
  // values at that precision is exact.
  auto endpoint = [&](const Rational& q, bool round_up) {
    mpfr_t f;
    mpfr_init2(f, static_cast<mpfr_prec_t>(x.precision()));
    mpfr_set_q(f, q.backend().data(), MPFR_RNDN);
    std::string text = render(f, digits, round_up);
    mpfr_clear(f);
    return text;
  };
  return "[" + endpoint(x.lower(), false) + ", " + endpoint(x.upper(), true) + "]";
}

}  // namespace seqi
