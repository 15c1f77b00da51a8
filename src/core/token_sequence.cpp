#include "seqi/core/token_sequence.hpp"

#include <limits>
#include <numeric>

#include "seqi/numbers/residue.hpp"

namespace seqi {
namespace {

static_assert(sizeof(long) == sizeof(std::int64_t), "mpz_get_si must deliver 64 bits");

constexpr __int128 kMax = std::numeric_limits<std::int64_t>::max();  // |numerator| <= kMax

bool fits(__int128 v) { return v <= kMax && v >= -kMax; }

// x = n / den in lowest terms (den > 0, |n| <= kMax).
void decode(std::int64_t n, std::int64_t den, Rational& x) {
  const auto g = static_cast<std::int64_t>(
      std::gcd(static_cast<std::uint64_t>(n < 0 ? -n : n), static_cast<std::uint64_t>(den)));
  const mpq_ptr q = x.backend().data();
  mpz_set_si(mpq_numref(q), n / g);
  mpz_set_si(mpq_denref(q), den / g);
}

// z = v exactly.
void set_int128(mpz_ptr z, __int128 v) {
  const bool negative = v < 0;
  const unsigned __int128 u = negative ? -static_cast<unsigned __int128>(v) : static_cast<unsigned __int128>(v);
  mpz_set_ui(z, static_cast<unsigned long>(u >> 64));
  mpz_mul_2exp(z, z, 64);
  mpz_add_ui(z, z, static_cast<unsigned long>(u & ~std::uint64_t{0}));
  if (negative) mpz_neg(z, z);
}

// x = n / den in lowest terms; precondition den > 0.
void set_ratio(__int128 n, __int128 den, Rational& x) {
  const mpq_ptr q = x.backend().data();
  set_int128(mpq_numref(q), n);
  set_int128(mpq_denref(q), den);
  mpq_canonicalize(q);
}

// sum_c a[c] * b[c] over integer entries of at most 64 bits into acc; false when a partial sum
// leaves 127 bits (each product fits: |a[c] b[c]| < 2^126).
template <class A, class B>
bool sum_of_products(const A* a, const B* b, Eigen::Index d, __int128& acc) {
  acc = 0;
  for (Eigen::Index c = 0; c < d; ++c)
    if (__builtin_add_overflow(acc, static_cast<__int128>(a[c]) * b[c], &acc)) return false;
  return true;
}

}  // namespace

bool TokenSequence::integer_dot(std::size_t i, const std::vector<std::int64_t>& r, Rational& out) const {
  if (fallback_ || static_cast<Eigen::Index>(r.size()) != d_) return false;
  const std::size_t at = i * static_cast<std::size_t>(d_);
  __int128 acc = 0;
  if (!num_.with_data([&](const auto* n) { return sum_of_products(n + at, r.data(), d_, acc); })) return false;
  set_ratio(acc, den_, out);
  return true;
}

bool TokenSequence::norm_sq(std::size_t i, Rational& out) const {
  if (fallback_) return false;
  const std::size_t at = i * static_cast<std::size_t>(d_);
  __int128 acc = 0;
  if (!num_.with_data([&](const auto* n) { return sum_of_products(n + at, n + at, d_, acc); })) return false;
  set_ratio(acc, static_cast<__int128>(den_) * den_, out);  // den_^2 < 2^126
  return true;
}

IntegerNumerators integer_numerators(const Point& r) {
  Integer den = 1;
  for (Eigen::Index c = 0; c < r.size(); ++c) den = boost::multiprecision::lcm(den, Integer(denominator(r[c])));
  const Integer top = std::numeric_limits<std::int64_t>::max();
  std::vector<std::int64_t> num;
  for (Eigen::Index c = 0; c < r.size(); ++c) {
    const Integer n = numerator(r[c]) * (den / denominator(r[c]));
    if (abs(n) > top) return std::nullopt;
    num.push_back(n.convert_to<std::int64_t>());
  }
  return std::pair{std::move(num), std::move(den)};
}

bool TokenSequence::weighted_residues(const std::vector<std::uint64_t>& w, std::uint64_t* out) const {
  if (fallback_ || static_cast<Eigen::Index>(w.size()) != d_) return false;
  const std::uint64_t den = static_cast<std::uint64_t>(den_) % kResidueModulus;
  if (den == 0) return false;
  const std::uint64_t inverse = inverse_mod(den);  // num/den -> num * den^-1 mod p, the ring map
  const auto d = static_cast<std::size_t>(d_);
  return num_.with_data([&](const auto* n) {
    for (std::size_t i = 0; i < n_; ++i) {
      std::uint64_t acc = 0;
      for (std::size_t c = 0; c < d; ++c) {
        const std::int64_t x = n[i * d + c];
        if (x == 0) continue;
        // |x| without overflow at INT64_MIN, then the residue of -|x| when x < 0.
        const std::uint64_t mag = (x > 0 ? static_cast<std::uint64_t>(x) : static_cast<std::uint64_t>(-(x + 1)) + 1) %
                                  kResidueModulus;
        acc = add_mod(acc, mul_mod(w[c], x > 0 || mag == 0 ? mag : kResidueModulus - mag));
      }
      out[i] = mul_mod(acc, inverse);
    }
    return true;
  });
}

bool TokenSequence::mean(Point& out) const {
  if (fallback_ || n_ == 0) return false;
  // |numerator| < 2^63 and n_ < 2^63: every partial sum and den_ * n_ stay below 2^126.
  std::vector<__int128> acc(static_cast<std::size_t>(d_), 0);
  num_.with_data([&](const auto* n) {
    for (std::size_t i = 0; i < n_; ++i)
      for (std::size_t c = 0; c < acc.size(); ++c) acc[c] += n[i * acc.size() + c];
    return true;
  });
  out.resize(d_);
  for (Eigen::Index c = 0; c < d_; ++c)
    set_ratio(acc[static_cast<std::size_t>(c)], static_cast<__int128>(den_) * static_cast<__int128>(n_), out[c]);
  return true;
}

TokenSequence::TokenSequence(std::initializer_list<Point> points) {
  for (const auto& x : points) push_back(x);
}

TokenSequence::TokenSequence(const std::vector<Point>& points) {
  for (const auto& x : points) push_back(x);
}

const Point TokenSequence::operator[](std::size_t i) const {
  if (fallback_) return big_[i];
  Point x(d_);
  const std::size_t at = i * static_cast<std::size_t>(d_);
  num_.with_data([&](const auto* n) {
    for (Eigen::Index c = 0; c < d_; ++c) decode(n[at + static_cast<std::size_t>(c)], den_, x[c]);
  });
  return x;
}

void TokenSequence::push_back(const Point& x) {
  if (!fallback_ && !push_compact(x)) to_fallback();
  if (fallback_) big_.push_back(x);
  ++n_;
}

// Appends x to the compact form, rescaling the stored numerators to a new common
// denominator when needed; false (nothing changed) when a value would not fit.
bool TokenSequence::push_compact(const Point& x) {
  if (n_ == 0) d_ = x.size();
  if (x.size() != d_) return false;
  __int128 den = den_;
  for (Eigen::Index c = 0; c < d_; ++c) {
    const mpq_srcptr q = x[c].backend().data();
    if (!mpz_fits_slong_p(mpq_numref(q)) || !mpz_fits_slong_p(mpq_denref(q))) return false;
    const auto b = static_cast<std::int64_t>(mpz_get_si(mpq_denref(q)));  // > 0, reduced
    const auto d64 = static_cast<std::int64_t>(den);
    den = static_cast<__int128>(d64 / std::gcd(d64, b)) * b;
    if (den > kMax) return false;
  }
  const auto scale = static_cast<std::int64_t>(den / den_);  // exact: den_ divides den
  if (const auto [lo, hi] = num_.range(); !fits(static_cast<__int128>(lo) * scale) ||
                                            !fits(static_cast<__int128>(hi) * scale))
    return false;  // scale > 0: the extremes bound every rescaled numerator
  std::vector<std::int64_t> row(static_cast<std::size_t>(d_));
  for (Eigen::Index c = 0; c < d_; ++c) {
    const mpq_srcptr q = x[c].backend().data();
    const __int128 v = static_cast<__int128>(mpz_get_si(mpq_numref(q))) *
                       (static_cast<std::int64_t>(den) / static_cast<std::int64_t>(mpz_get_si(mpq_denref(q))));
    if (!fits(v)) return false;
    row[static_cast<std::size_t>(c)] = static_cast<std::int64_t>(v);
  }
  if (scale != 1) num_.scale(scale);
  den_ = static_cast<std::int64_t>(den);
  num_.append(row);
  return true;
}

void TokenSequence::to_fallback() {
  big_ = points();
  fallback_ = true;
  num_.clear();
  den_ = 1;
}

void TokenSequence::shrink_to_fit() {
  num_.shrink_to_fit();
  big_.shrink_to_fit();
}

std::vector<Point> TokenSequence::points() const {
  if (fallback_) return big_;
  std::vector<Point> out;
  out.reserve(n_);
  for (std::size_t i = 0; i < n_; ++i) out.push_back((*this)[i]);
  return out;
}

int compare_tokens(const TokenSequence& a, std::size_t i, const TokenSequence& b, std::size_t j) {
  if (a.compact() && b.compact() && a.d_ == b.d_) {
    // a/da < b/db iff a * db < b * da (denominators > 0); products fit in 127 bits.
    const std::size_t at_x = i * static_cast<std::size_t>(a.d_), at_y = j * static_cast<std::size_t>(b.d_);
    return a.num_.with_data([&](const auto* x) {
      return b.num_.with_data([&](const auto* y) {
        for (Eigen::Index c = 0; c < a.d_; ++c) {
          const auto k = static_cast<std::size_t>(c);
          const __int128 l = static_cast<__int128>(x[at_x + k]) * b.den_, r = static_cast<__int128>(y[at_y + k]) * a.den_;
          if (l != r) return l < r ? -1 : 1;
        }
        return 0;
      });
    });
  }
  const Point x = a[i], y = b[j];
  if (x.size() != y.size()) return x.size() < y.size() ? -1 : 1;
  return lex_less(x, y) ? -1 : lex_less(y, x) ? 1 : 0;
}

}  // namespace seqi
