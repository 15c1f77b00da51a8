#include "seqi/numbers/residue.hpp"

#include <gmp.h>

namespace seqi {
namespace {

constexpr std::uint64_t p = kResidueModulus;

std::uint64_t reduce(unsigned __int128 x) {  // x < 2^122
  const std::uint64_t lo = static_cast<std::uint64_t>(x) & p, hi = static_cast<std::uint64_t>(x >> 61);
  const std::uint64_t s = lo + hi;  // < 2^62
  const std::uint64_t t = (s & p) + (s >> 61);
  return t >= p ? t - p : t;
}

std::uint64_t residue_of(const mpz_t z) {
  // mpz_fdiv_ui: the remainder of floor division, in [0, p) also for negative z.
  static_assert(sizeof(unsigned long) == sizeof(std::uint64_t));
  return mpz_fdiv_ui(z, p);
}

}  // namespace

std::uint64_t add_mod(std::uint64_t a, std::uint64_t b) {
  const std::uint64_t s = a + b;
  return s >= p ? s - p : s;
}

std::uint64_t mul_mod(std::uint64_t a, std::uint64_t b) {
  return reduce(static_cast<unsigned __int128>(a) * b);
}

std::uint64_t inverse_mod(std::uint64_t a) {  // Fermat: a^(p-2)
  std::uint64_t result = 1, base = a;
  for (std::uint64_t e = p - 2; e; e >>= 1) {
    if (e & 1) result = mul_mod(result, base);
    base = mul_mod(base, base);
  }
  return result;
}

std::uint64_t residue(const Integer& x) { return residue_of(x.backend().data()); }

std::optional<std::uint64_t> residue(const Rational& x) {
  const std::uint64_t den = residue_of(mpq_denref(x.backend().data()));
  if (den == 0) return std::nullopt;
  const std::uint64_t num = residue_of(mpq_numref(x.backend().data()));
  return den == 1 ? num : mul_mod(num, inverse_mod(den));
}

std::optional<std::uint64_t> weighted_residue(const std::vector<std::uint64_t>& w, const Point& x) {
  // Accumulate num/den with one inversion at the end.
  std::uint64_t num = 0, den = 1;
  for (Eigen::Index c = 0; c < x.size(); ++c) {
    const auto q = x[c].backend().data();
    if (mpq_sgn(q) == 0) continue;
    const std::uint64_t a = mul_mod(w[static_cast<std::size_t>(c)], residue_of(mpq_numref(q)));
    if (mpz_cmp_ui(mpq_denref(q), 1) == 0) {
      num = add_mod(num, mul_mod(a, den));
      continue;
    }
    const std::uint64_t b = residue_of(mpq_denref(q));
    if (b == 0) return std::nullopt;
    num = add_mod(mul_mod(num, b), mul_mod(a, den));
    den = mul_mod(den, b);
  }
  return den == 1 ? num : mul_mod(num, inverse_mod(den));
}

std::vector<std::uint64_t> residue_weights(std::size_t d) {
  std::vector<std::uint64_t> w(d);
  for (std::size_t c = 0; c < d; ++c) {  // splitmix64 of c
    std::uint64_t z = (c + 1) * 0x9E3779B97F4A7C15ull;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    w[c] = (z ^ (z >> 31)) % p;
  }
  return w;
}

}  // namespace seqi
