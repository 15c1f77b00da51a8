#include "seqi/numbers/rational.hpp"
#include "seqi/numbers/small_ratio.hpp"

#include <boost/multiprecision/mpfr.hpp>

#include <algorithm>
#include <cctype>
#include <numeric>

namespace seqi {
namespace {

bool all_digits(std::string_view s) {
  if (s.empty()) return false;
  for (char c : s)
    if (!std::isdigit(static_cast<unsigned char>(c))) return false;
  return true;
}

// 10^k by GMP's binary powering (k is bounded by the digit and exponent limits).
Integer pow10(std::size_t k) { return boost::multiprecision::pow(Integer(10), static_cast<unsigned>(k)); }

std::size_t digit_count(std::string_view s) {
  return static_cast<std::size_t>(std::count_if(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; }));
}

void set_why(std::string* why, const char* reason) {
  if (why) *why = reason;
}

std::optional<Rational> parse_small_ratio(std::string_view s) {
  Rational x;
  if (!read_small_ratio(s, x)) return std::nullopt;
  return x;
}

// Decimal "[+-]digits[.digits][e[+-]digits]" as an exact rational.
std::optional<Rational> parse_decimal(std::string_view s, std::string* why) {
  bool negative = false;
  if (!s.empty() && (s[0] == '-' || s[0] == '+')) {
    negative = s[0] == '-';
    s.remove_prefix(1);
  }
  std::string_view mantissa = s, exponent;
  const auto e = s.find_first_of("eE");
  if (e != std::string_view::npos) {
    mantissa = s.substr(0, e);
    exponent = s.substr(e + 1);
  }
  std::string_view int_part = mantissa, frac_part;
  if (auto dot_at = mantissa.find('.'); dot_at != std::string_view::npos) {
    int_part = mantissa.substr(0, dot_at);
    frac_part = mantissa.substr(dot_at + 1);
  }
  if ((int_part.empty() && frac_part.empty()) || (!int_part.empty() && !all_digits(int_part)) ||
      (!frac_part.empty() && !all_digits(frac_part)))
    return set_why(why, "not a decimal or p/q rational"), std::nullopt;
  if (e != std::string_view::npos && exponent.empty()) return set_why(why, "empty exponent"), std::nullopt;
  long long exp10 = 0;
  if (!exponent.empty()) {
    bool exp_negative = false;
    if (exponent[0] == '-' || exponent[0] == '+') {
      exp_negative = exponent[0] == '-';
      exponent.remove_prefix(1);
    }
    if (!all_digits(exponent)) return set_why(why, "malformed exponent"), std::nullopt;
    exponent.remove_prefix(std::min(exponent.find_first_not_of('0'), exponent.size() - 1));  // "000001" is 1
    if (exponent.size() > 5 || std::stoll(std::string(exponent)) > kMaxDecimalExponent)
      return set_why(why, "exponent too large (|e| > 1000); write the number as p/q"), std::nullopt;
    exp10 = std::stoll(std::string(exponent));
    if (exp_negative) exp10 = -exp10;
  }
  // Leading zeros stripped: Boost reads a leading 0 as an octal prefix.
  std::string all = std::string(int_part) + std::string(frac_part);
  all.erase(0, std::min(all.find_first_not_of('0'), all.size()));
  Integer digits(all.empty() ? std::string("0") : all);
  exp10 -= static_cast<long long>(frac_part.size());
  Rational value = exp10 >= 0 ? Rational(digits * pow10(static_cast<std::size_t>(exp10)))
                              : Rational(digits, pow10(static_cast<std::size_t>(-exp10)));
  return negative ? -value : value;
}

}  // namespace

bool read_small_ratio(std::string_view s, Rational& x) {
  const auto read = [](std::string_view t, long long& v) {
    if (t.empty() || t.size() > 18 || !all_digits(t)) return false;
    v = 0;
    for (char c : t) v = v * 10 + (c - '0');
    return true;
  };
  const bool negative = !s.empty() && s[0] == '-';
  if (negative) s.remove_prefix(1);
  const auto slash = s.find('/');
  long long p = 0, q = 1;
  if (!read(s.substr(0, slash), p)) return false;
  if (slash != std::string_view::npos && (!read(s.substr(slash + 1), q) || q == 0)) return false;
  if (p == 0) {  // the most common pixel: a fresh x is 0 already and keeps its numerator unallocated
    if (!x.is_zero()) x = 0;
    return true;
  }
  const long long g = std::gcd(p, q);  // q > 0, so g > 0: p/g over q/g is in lowest terms
  mpz_set_si(mpq_numref(x.backend().data()), negative ? -(p / g) : p / g);
  mpz_set_si(mpq_denref(x.backend().data()), q / g);
  return true;
}

std::optional<Rational> parse_rational(std::string_view text, std::string* why, std::size_t max_digits) {
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.front()))) text.remove_prefix(1);
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.back()))) text.remove_suffix(1);
  if (text.empty()) return set_why(why, "empty string"), std::nullopt;
  if (digit_count(text) > max_digits) {
    if (why) *why = "more than " + std::to_string(max_digits) + " digits, the limit per number";
    return std::nullopt;
  }
  if (auto r = parse_small_ratio(text)) return r;
  auto slash = text.find('/');
  if (slash == std::string_view::npos) return parse_decimal(text, why);
  auto num = parse_decimal(text.substr(0, slash), why);
  if (!num) return std::nullopt;
  auto den = parse_decimal(text.substr(slash + 1), why);
  if (!den) return std::nullopt;
  if (*den == 0) return set_why(why, "zero denominator"), std::nullopt;
  return *num / *den;
}

std::string to_string(const Rational& x) { return x.str(); }

std::string approx_decimal(const Rational& x, int digits) {
  using Display = boost::multiprecision::number<boost::multiprecision::mpfr_float_backend<40>>;
  return Display(x).str(digits);
}

std::size_t bit_size(const Rational& x) {
  // Read in place (no copies of numerator and denominator): mpz_sizeinbase(v, 2) = msb(|v|) + 1
  // for v != 0, exactly.
  const mpq_srcptr q = x.backend().data();
  std::size_t bits = 1;
  if (mpq_sgn(q) != 0) bits += mpz_sizeinbase(mpq_numref(q), 2);
  bits += mpz_sizeinbase(mpq_denref(q), 2);
  return bits;
}

Rational dyadic_floor_at_most_one(const Rational& x) {
  if (x >= 1) return 1;
  // x < 2^(e+1) with e = msb(num) - msb(den), so 2^-k > x for k = -e-1: start there, then
  // at most a few exact steps (no loop proportional to the size of x).
  using boost::multiprecision::msb;
  const long long e = static_cast<long long>(msb(numerator(x))) - static_cast<long long>(msb(denominator(x)));
  std::size_t k = e < -1 ? static_cast<std::size_t>(-e - 1) : 0;
  while (Rational(Integer(1), Integer(1) << k) > x) ++k;
  return Rational(Integer(1), Integer(1) << k);
}

Rational dot(const Point& a, const Point& b) {
  // Sum num/den over a running common denominator D (multiplied only by the part of a
  // term's denominator it lacks), one canonicalization at the end; zero terms skipped and
  // buffers reused (no allocation per term).
  Rational term, result;
  mpz_t S, D, g, t;
  mpz_inits(S, D, g, t, nullptr);
  mpz_set_ui(D, 1);
  for (Eigen::Index i = 0; i < a.size(); ++i) {
    if (a[i].is_zero() || b[i].is_zero()) continue;
    mpq_mul(term.backend().data(), a[i].backend().data(), b[i].backend().data());
    const mpz_srcptr n = mpq_numref(term.backend().data()), d = mpq_denref(term.backend().data());
    if (mpz_divisible_p(D, d)) {  // S/D += n (D/d)
      mpz_divexact(t, D, d);
      mpz_addmul(S, n, t);
      continue;
    }
    mpz_gcd(g, D, d);  // S/D + n/d = (S (d/g) + n (D/g)) / (D (d/g))
    mpz_divexact(t, d, g);
    mpz_mul(S, S, t);
    mpz_mul(D, D, t);
    mpz_divexact(t, D, d);
    mpz_addmul(S, n, t);
  }
  mpz_swap(mpq_numref(result.backend().data()), S);
  mpz_swap(mpq_denref(result.backend().data()), D);
  mpq_canonicalize(result.backend().data());
  mpz_clears(S, D, g, t, nullptr);
  return result;
}

Rational norm_sq(const Point& a) { return dot(a, a); }

bool lex_less(const Point& a, const Point& b) {
  for (Eigen::Index i = 0; i < a.size(); ++i) {
    if (a[i] < b[i]) return true;
    if (b[i] < a[i]) return false;
  }
  return false;
}

bool equal_points(const Point& a, const Point& b) {
  if (a.size() != b.size()) return false;
  for (Eigen::Index i = 0; i < a.size(); ++i)
    if (a[i] != b[i]) return false;
  return true;
}

std::string to_string(const Point& p) {
  std::string s = "(";
  for (Eigen::Index i = 0; i < p.size(); ++i) {
    if (i) s += ", ";
    s += to_string(p[i]);
  }
  return s + ")";
}

}  // namespace seqi
