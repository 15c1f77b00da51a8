// Exact rational scalar used in every certificate path.
#pragma once
#include <boost/multiprecision/gmp.hpp>
#include <Eigen/Core>
#include <boost/multiprecision/eigen.hpp>
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace seqi {

// Expression templates off: Eigen stores and copies scalars by value.
using Rational = boost::multiprecision::number<boost::multiprecision::gmp_rational,
                                               boost::multiprecision::et_off>;
using Integer = boost::multiprecision::number<boost::multiprecision::gmp_int,
                                              boost::multiprecision::et_off>;

template <class S>
using Vec = Eigen::Matrix<S, Eigen::Dynamic, 1>;
template <class S>
using Mat = Eigen::Matrix<S, Eigen::Dynamic, Eigen::Dynamic>;

using Point = Vec<Rational>;

// Limits on a number read from text: at most max_digits digits in all (numerator and
// denominator; kMaxNumberDigits for dataset coordinates), a decimal exponent of at most kMaxDecimalExponent in absolute value (leading
// zeros of the exponent do not count). Parsing is near-linear in the text (GMP's conversion).
inline constexpr std::size_t kMaxNumberDigits = 10000;
// Model parameters combine a few coordinates, so model files allow ten times more.
inline constexpr std::size_t kMaxModelNumberDigits = 100000;
inline constexpr long long kMaxDecimalExponent = 1000;

// Parses an exact rational from decimal text: "-3/7", "2", "0.125", "1e-3", "-2.5E+4".
// Returns nullopt (with a reason in *why) when the text is not such a number or exceeds the
// limits above. Never goes through a binary float.
std::optional<Rational> parse_rational(std::string_view text, std::string* why = nullptr,
                                       std::size_t max_digits = kMaxNumberDigits);

// "p/q" in lowest terms, or "p" when q = 1.
std::string to_string(const Rational& x);

// Decimal rendering for display only (never used in a decision).
std::string approx_decimal(const Rational& x, int digits = 6);

// Bits of numerator plus bits of denominator (a measure of storage cost).
std::size_t bit_size(const Rational& x);

// Largest 2^-k (k >= 0) that is <= x; precondition x > 0. Returns 1 when x >= 1.
Rational dyadic_floor_at_most_one(const Rational& x);

// Exact Euclidean inner product and squared norm.
Rational dot(const Point& a, const Point& b);
Rational norm_sq(const Point& a);

// Lexicographic order on points of equal dimension (total order; used for sets).
bool lex_less(const Point& a, const Point& b);
bool equal_points(const Point& a, const Point& b);

// Coordinates as "(a, b, ...)".
std::string to_string(const Point& p);

}  // namespace seqi
