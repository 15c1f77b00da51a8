#include "seqi/core/byte_codec.hpp"

#include <gmp.h>


namespace seqi {

namespace {

// An integer's first byte: its form. Small ones are two's complement, little-endian, in 1, 4 or 8
// bytes (most values of a construction); others a sign byte, a u64 length and |z| big-endian.
enum IntegerForm : unsigned char { kInt8 = 1, kInt32 = 2, kInt64 = 3, kBig = 4 };

void append_le(std::string& out, std::uint64_t v, int bytes) {
  char b[8];
  for (int k = 0; k < bytes; ++k) b[k] = static_cast<char>((v >> (8 * k)) & 0xff);
  out.append(b, static_cast<std::size_t>(bytes));
}

void put_mpz(std::string& out, mpz_srcptr p) {
  if (mpz_fits_slong_p(p)) {
    const long v = mpz_get_si(p);
    const auto u = static_cast<std::uint64_t>(v);
    if (v >= -128 && v <= 127) {
      out.push_back(static_cast<char>(kInt8)), append_le(out, u, 1);
    } else if (v >= -2147483648L && v <= 2147483647L) {
      out.push_back(static_cast<char>(kInt32)), append_le(out, u, 4);
    } else {
      out.push_back(static_cast<char>(kInt64)), append_le(out, u, 8);
    }
    return;
  }
  out.push_back(static_cast<char>(kBig));
  out.push_back(static_cast<char>(mpz_sgn(p) < 0));
  const std::size_t n = (mpz_sizeinbase(p, 2) + 7) / 8;
  append_le(out, n, 8);
  const std::size_t at = out.size();
  out.resize(at + n);
  std::size_t written = 0;
  mpz_export(out.data() + at, &written, 1, 1, 1, 0, p);
  out.resize(at + written);
}

}  // namespace

void ByteWriter::put(std::uint64_t v) { append_le(bytes_, v, 8); }

void ByteWriter::put(std::string_view s) {
  put(std::uint64_t{s.size()});
  bytes_.append(s);
}

void ByteWriter::put(const Integer& z) { put_mpz(bytes_, z.backend().data()); }

void ByteWriter::put(const Rational& q) {
  const mpq_srcptr p = q.backend().data();
  put_mpz(bytes_, mpq_numref(p));
  put_mpz(bytes_, mpq_denref(p));
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

void ByteReader::read_mpz(mpz_ptr z) {
  const auto form = static_cast<unsigned char>(take(1)[0]);
  const auto small = [&](int bytes) {
    const auto s = take(static_cast<std::size_t>(bytes));
    std::uint64_t u = 0;
    for (int k = 0; k < bytes; ++k) u |= std::uint64_t(static_cast<unsigned char>(s[k])) << (8 * k);
    if (bytes < 8 && (u >> (8 * bytes - 1)) & 1) u |= ~std::uint64_t{0} << (8 * bytes);  // sign-extend
    mpz_set_si(z, static_cast<long>(u));
  };
  if (form == kInt8) return small(1);
  if (form == kInt32) return small(4);
  if (form == kInt64) return small(8);
  if (form != kBig) throw ByteCodecError("byte codec: expected an integer, got form " + std::to_string(form));
  const auto sign = static_cast<unsigned char>(take(1)[0]);
  if (sign > 1) throw ByteCodecError("byte codec: an integer's sign byte is " + std::to_string(sign));
  const auto s = take(size());
  mpz_set_ui(z, 0);
  if (!s.empty()) mpz_import(z, s.size(), 1, 1, 1, 0, s.data());
  if (sign) mpz_neg(z, z);
}

Integer ByteReader::integer() {
  Integer z;
  read_mpz(z.backend().data());
  return z;
}

// Written from a Rational, the two integers are in lowest terms; other bytes are brought there.
Rational ByteReader::rational() {
  Rational q;
  const mpq_ptr p = q.backend().data();
  read_mpz(mpq_numref(p));
  read_mpz(mpq_denref(p));
  if (mpz_sgn(mpq_denref(p)) <= 0) throw ByteCodecError("byte codec: a rational's denominator is not positive");
  if (mpz_cmp_ui(mpq_denref(p), 1) != 0) mpq_canonicalize(p);
  return q;
}

Point ByteReader::point() {
  const std::size_t n = size();
  if (n > bytes_.size() - at_) throw ByteCodecError("byte codec: the bytes end early");
  Point p(static_cast<Eigen::Index>(n));
  for (std::size_t k = 0; k < n; ++k) p[static_cast<Eigen::Index>(k)] = rational();
  return p;
}

}  // namespace seqi
