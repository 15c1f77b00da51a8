#include "seqi/io/vnnlib.hpp"

#include <cmath>
#include <limits>
#include <sstream>

#include "seqi/core/input_error.hpp"
#include "seqi/io/float_bits.hpp"

namespace seqi {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

// The double next to d towards `to`, refusing to leave the finite doubles.
double step(double d, double to, const Rational& x) {
  const double next = std::nextafter(d, to);
  if (std::isinf(next))
    throw InputError("the number " + approx_decimal(x, 17) + " has no finite double " + (to > 0 ? "above" : "below") +
                     " it; a VNN-LIB bound cannot be written");
  return next;
}

void check_claim(const BoxClaim& claim) {
  if (claim.input.size() != claim.centres.size())
    throw InputError("a property with " + std::to_string(claim.input.size()) + " input tokens and " +
                     std::to_string(claim.centres.size()) + " output tokens (the graph maps n tokens to n)");
  if (claim.radius < 0) throw InputError("a property with a negative radius " + to_string(claim.radius));
  for (std::size_t i = 0; i < claim.input.size(); ++i)
    if (claim.input[i].size() != claim.input[0].size() || claim.centres[i].size() != claim.input[0].size())
      throw InputError("a property whose token " + std::to_string(i + 1) + " differs in dimension from token 1");
}

}  // namespace

std::string exact_decimal(double x) {
  const Rational r = exact_rational_of_double(x);  // InputError on NaN and infinities
  Integer num = abs(numerator(r));
  const Integer den = denominator(r);  // a power of two: the expansion ends
  std::string out = r < 0 ? "-" : "";
  out += (num / den).str();
  num %= den;
  if (num != 0) out += '.';
  while (num != 0) {
    num *= 10;
    out += static_cast<char>('0' + static_cast<int>(num / den));
    num %= den;
  }
  return out;
}

double double_above(const Rational& x) {
  double d = nearest_double(x);
  if (std::isinf(d)) {
    if (d > 0) step(std::numeric_limits<double>::max(), kInf, x);  // throws: nothing finite above
    d = std::numeric_limits<double>::lowest();
  }
  while (exact_rational_of_double(d) <= x) d = step(d, kInf, x);
  // nearest_double may round twice below 2^-1022: come down to the least double above x.
  while (d > std::numeric_limits<double>::lowest() && exact_rational_of_double(std::nextafter(d, -kInf)) > x)
    d = std::nextafter(d, -kInf);
  return d;
}

double double_below(const Rational& x) { return -double_above(-x); }

std::string vnnlib_text(const BoxClaim& claim, const std::vector<std::string>& comments) {
  check_claim(claim);
  std::ostringstream out;
  for (const auto& line : comments) out << "; " << line << "\n";
  const std::size_t n = claim.input.size();
  const std::size_t d = n == 0 ? 0 : static_cast<std::size_t>(claim.input[0].size());
  out << "\n; Input X [" << n << ", " << d << "], row-major\n";
  for (std::size_t k = 0; k < n * d; ++k) out << "(declare-const X_" << k << " Real)\n";
  out << "\n; Output Y [" << n << ", " << d << "], row-major\n";
  for (std::size_t k = 0; k < n * d; ++k) out << "(declare-const Y_" << k << " Real)\n";
  out << "\n; The input: one point (lower bound = upper bound)\n";
  for (std::size_t i = 0; i < n; ++i)
    for (std::size_t c = 0; c < d; ++c) {
      const std::string v = exact_decimal(nearest_double(claim.input[i](static_cast<Eigen::Index>(c))));
      out << "(assert (<= X_" << i * d + c << " " << v << "))\n(assert (>= X_" << i * d + c << " " << v << "))\n";
    }
  out << "\n; The unsafe region: some output coordinate outside its claimed interval\n(assert (or\n";
  for (std::size_t i = 0; i < n; ++i)
    for (std::size_t c = 0; c < d; ++c) {
      const Rational& centre = claim.centres[i](static_cast<Eigen::Index>(c));
      const std::size_t k = i * d + c;
      out << "  (and (>= Y_" << k << " " << exact_decimal(double_above(centre + claim.radius)) << "))\n";
      out << "  (and (<= Y_" << k << " " << exact_decimal(double_below(centre - claim.radius)) << "))\n";
    }
  out << "))\n";
  return out.str();
}

std::string counterexample_text(const std::vector<Point>& input, const std::vector<Point>& output) {
  std::ostringstream out;
  out << "sat\n(";
  const auto write = [&](const std::vector<Point>& tokens, const char* name, bool first) {
    std::size_t k = 0;
    for (const Point& token : tokens)
      for (Eigen::Index c = 0; c < token.size(); ++c, ++k) {
        out << (first && k == 0 ? "(" : " (") << name << "_" << k << " " << exact_decimal(nearest_double(token(c)))
            << ")";
        out << "\n";
      }
  };
  write(input, "X", true);
  write(output, "Y", input.empty());
  out << ")\n";
  return out.str();
}

}  // namespace seqi
