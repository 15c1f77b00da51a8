// Exact values through bytes (seqi/core/byte_codec.hpp) and the blocks of sequences each
// process owns (seqi/core/sharding.hpp). Seeded: SEQI_SEED=<n> replays a run.
#include <boost/test/unit_test.hpp>

#include <cstdlib>
#include <iostream>
#include <string>

#include "seqi/core/byte_codec.hpp"
#include "seqi/core/rng.hpp"
#include "seqi/core/sharding.hpp"

BOOST_AUTO_TEST_SUITE(test_byte_codec)

using namespace seqi;

namespace {

std::uint64_t seed() {
  const char* s = std::getenv("SEQI_SEED");
  const std::uint64_t v = s ? std::strtoull(s, nullptr, 10) : 20261130;
  std::cout << "byte_codec seed " << v << " (SEQI_SEED=" << v << " replays)\n";
  return v;
}

}  // namespace

BOOST_AUTO_TEST_CASE(values_read_back_equal_to_the_values_written) {
  Rng rng(seed());
  ByteWriter w;
  std::vector<Rational> written;
  // Zero, signs, and numerators and denominators from 1 to about 600 bits.
  for (int k = 0; k < 200; ++k) {
    const Integer range = Integer(1) << (3 * k);
    Integer den = rng.integer_in(range);
    if (den == 0) den = 1;
    written.push_back(Rational(rng.integer_in(range), den));
  }
  written.push_back(0);
  for (const auto& q : written) w.put(q);
  const Point p = (Point(3) << Rational(-1, 3), Rational(0), Rational(Integer(1) << 200, 7)).finished();
  w.put(p);
  w.put(std::optional<Rational>()), w.put(std::optional<Rational>(Rational(5, 2)));
  w.put(std::string_view("sequence 3, token 1")), w.put(true), w.put(std::uint64_t{1} << 63);
  ByteReader r(w.bytes());
  for (const auto& q : written) BOOST_TEST(r.rational() == q);
  const Point back = r.point();
  BOOST_TEST(back.size() == 3);
  for (Eigen::Index k = 0; k < 3; ++k) BOOST_TEST(back[k] == p[k]);
  BOOST_TEST(!r.optional_rational().has_value());
  BOOST_TEST(*r.optional_rational() == Rational(5, 2));
  BOOST_TEST(r.string() == "sequence 3, token 1");
  BOOST_TEST(r.flag());
  BOOST_TEST(r.u64() == std::uint64_t{1} << 63);
  BOOST_TEST(r.done());
}

BOOST_AUTO_TEST_CASE(truncated_or_wrong_bytes_are_refused) {
  // Every form of integer: 1, 4 and 8 bytes, and beyond int64.
  for (const Rational& q : {Rational(-22, 7), Rational(-100000, 3), Rational(Integer(1) << 40, 3),
                            Rational(-(Integer(1) << 100), (Integer(1) << 90) + 1)}) {
    ByteWriter w;
    w.put(q);
    const std::string bytes = w.bytes();
    BOOST_TEST(ByteReader(bytes).rational() == q);
    for (std::size_t n = 0; n < bytes.size(); ++n) {
      ByteReader r(std::string_view(bytes).substr(0, n));
      BOOST_CHECK_THROW(r.rational(), ByteCodecError);
    }
    std::string wrong = bytes;
    wrong[0] = 9;  // no such form
    BOOST_CHECK_THROW(ByteReader(wrong).rational(), ByteCodecError);
  }
  ByteWriter unreduced;  // 6/4 as two integers reads back as 3/2
  unreduced.put(Integer(6)), unreduced.put(Integer(4));
  BOOST_TEST(ByteReader(unreduced.bytes()).rational() == Rational(3, 2));
  ByteWriter two;
  two.put(std::uint64_t{2});
  ByteReader r(two.bytes());
  BOOST_CHECK_THROW(r.flag(), ByteCodecError);
  ByteWriter zero_den;
  zero_den.put(Integer(1)), zero_den.put(Integer(0));
  ByteReader z(zero_den.bytes());
  BOOST_CHECK_THROW(z.rational(), ByteCodecError);
}

BOOST_AUTO_TEST_CASE(owned_blocks_are_contiguous_increasing_and_cover_every_index) {
  for (std::size_t n : {0, 1, 2, 5, 7, 1000})
    for (std::size_t parts : {1, 2, 3, 4, 9}) {
      std::size_t next = 0, smallest = n, largest = 0;
      for (std::size_t p = 0; p < parts; ++p) {
        const auto [first, last] = owned_range(n, parts, p);
        BOOST_TEST(first == next);
        BOOST_TEST(first <= last);
        smallest = std::min(smallest, last - first), largest = std::max(largest, last - first);
        next = last;
      }
      BOOST_TEST(next == n);
      BOOST_TEST(largest - smallest <= 1);
    }
}

BOOST_AUTO_TEST_SUITE_END()
