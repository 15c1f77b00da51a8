// Exact values as bytes, to pass between processes (verify-mpi): a writer appends, a reader
// consumes in the same order. An integer is a form byte and either 1, 4 or 8 bytes of two's
// complement or, beyond int64, a sign and GMP's binary export; a rational is its numerator and
// denominator. A value read back equals the value written. Not a file format: both ends are the
// same build.
#pragma once
#include <cstddef>
#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>

#include <gmp.h>

#include "seqi/numbers/rational.hpp"

namespace seqi {

// The bytes end early or hold something other than what the reader expects.
struct ByteCodecError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

class ByteWriter {
 public:
  void put(std::uint64_t v);
  void put(bool b) { put(std::uint64_t{b}); }
  void put(std::string_view s);
  void put(const Integer& z);
  void put(const Rational& q);
  void put(const Point& p);
  template <class T>
  void put(const std::optional<T>& v) {
    put(v.has_value());
    if (v) put(*v);
  }
  const std::string& bytes() const { return bytes_; }
  std::string take() { return std::move(bytes_); }

 private:
  std::string bytes_;
};

class ByteReader {
 public:
  explicit ByteReader(std::string_view bytes) : bytes_(bytes) {}
  std::uint64_t u64();
  std::size_t size() { return static_cast<std::size_t>(u64()); }
  bool flag();
  std::string string();
  Integer integer();
  Rational rational();
  Point point();
  std::optional<Rational> optional_rational() { return flag() ? std::optional(rational()) : std::nullopt; }
  bool done() const { return at_ == bytes_.size(); }

 private:
  std::string_view take(std::size_t n);
  void read_mpz(mpz_ptr z);
  std::string_view bytes_;
  std::size_t at_ = 0;
};

}  // namespace seqi
