#include "seqi/core/byte_codec.hpp"

#include <gmp.h>

#include <vector>

namespace seqi {

void ByteWriter::put(std::uint64_t v) {
  for (int k = 0; k < 8; ++k) bytes_.push_back(static_cast<char>((v >> (8 * k)) & 0xff));
}

void ByteWriter::put(std::string_view s) {
  put(std::uint64_t{s.size()});
  bytes_.append(s);
}

// Sign, then |z| as big-endian bytes (mpz_export).
void ByteWriter::put(const Integer& z) {
  const mpz_srcptr p = z.backend().data();
  put(std::uint64_t(mpz_sgn(p) < 0));
  const std::size_t n = (mpz_sizeinbase(p, 2) + 7) / 8;
  std::vector<unsigned char> buf(mpz_sgn(p) == 0 ? 0 : n);
  std::size_t written = 0;
  if (!buf.empty()) mpz_export(buf.data(), &written, 1, 1, 1, 0, p);
  put(std::string_view(reinterpret_cast<const char*>(buf.data()), written));
}

void ByteWriter::put(const Rational& q) {
  put(Integer(numerator(q)));
  put(Integer(denominator(q)));
}

void ByteWriter::put(const Point& p) {
  put(std::uint64_t(p.size()));
  for (Eigen::Index k = 0; k < p.size(); ++k) put(p[k]);
}

std::string_view ByteReader::take(std::size_t n) {
  if (n > bytes_.size() - at_) throw ByteCodecError("byte codec: the bytes end early");
  const auto s = bytes_.substr(at_, n);
  at_ += n;
  return s;
}

std::uint64_t ByteReader::u64() {
  const auto s = take(8);
  std::uint64_t v = 0;
  for (int k = 0; k < 8; ++k) v |= std::uint64_t(static_cast<unsigned char>(s[k])) << (8 * k);
  return v;
}

bool ByteReader::flag() {
  const auto v = u64();
  if (v > 1) throw ByteCodecError("byte codec: expected a flag, got " + std::to_string(v));
  return v == 1;
}

std::string ByteReader::string() { return std::string(take(size())); }

Integer ByteReader::integer() {
  const bool negative = flag();
  const auto s = take(size());
  Integer z;
  if (!s.empty()) mpz_import(z.backend().data(), s.size(), 1, 1, 1, 0, s.data());
  return negative ? Integer(-z) : z;
}

Rational ByteReader::rational() {
  Integer num = integer(), den = integer();
  if (den <= 0) throw ByteCodecError("byte codec: a rational's denominator is not positive");
  return Rational(num, den);
}

Point ByteReader::point() {
  const std::size_t n = size();
  if (n > bytes_.size() - at_) throw ByteCodecError("byte codec: the bytes end early");
  Point p(static_cast<Eigen::Index>(n));
  for (std::size_t k = 0; k < n; ++k) p[static_cast<Eigen::Index>(k)] = rational();
  return p;
}

}  // namespace seqi
