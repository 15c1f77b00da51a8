// Randomised-test scaffolding shared by the interval suites (test_interval, test_interval_functions),
// Arb style: the base seed is printed once per run (PrintSeed, registered as a global fixture in
// each suite) and SEQI_SEED=<seed> replays it; each test case draws from its own stream.
#pragma once
#include <boost/test/unit_test.hpp>

#include <cstdint>
#include <cstdlib>
#include <iostream>
#include <iterator>
#include <random>
#include <string>

#include "seqi/numbers/interval.hpp"
#include "seqi/numbers/rational.hpp"

namespace seqi_test::interval {

using seqi::Integer;
using seqi::Interval;
using seqi::Rational;

inline std::uint64_t base_seed() {
  static const std::uint64_t seed = [] {
    if (const char* s = std::getenv("SEQI_SEED"); s != nullptr && *s != '\0')
      return static_cast<std::uint64_t>(std::stoull(s));
    std::random_device rd;
    return (static_cast<std::uint64_t>(rd()) << 32) ^ rd();
  }();
  return seed;
}

struct PrintSeed {
  PrintSeed() {
    std::cout << "test_interval: seed " << base_seed() << " (replay with SEQI_SEED=" << base_seed() << ")"
              << std::endl;
  }
};

using Rng = std::mt19937_64;

// Each test case gets its own stream so a single case replays on its own (--run_test=...).
inline Rng make_rng(std::uint64_t tag) { return Rng(base_seed() ^ (tag * 0x9E3779B97F4A7C15ULL)); }

// A failed check reports the seed and the offending values; messages are only built on failure.
#define SEQI_CHECK(cond, msg)                                                                               \
  do {                                                                                                      \
    if (!(cond))                                                                                            \
      BOOST_ERROR("check failed: " #cond " | seed " << ::seqi_test::interval::base_seed() << " | " << msg); \
  } while (0)

inline std::uint64_t below(Rng& g, std::uint64_t n) {
  return std::uniform_int_distribution<std::uint64_t>(0, n - 1)(g);
}

inline Rational pow2(long e) {
  Rational r = 1;
  Integer p = 1;
  p <<= static_cast<unsigned>(e >= 0 ? e : -e);
  return e >= 0 ? Rational(p) : r / Rational(p);
}

inline Integer random_integer(Rng& g, unsigned bits) {
  Integer x = 0;
  for (unsigned done = 0; done < bits; done += 64) x = (x << 64) | Integer(g());
  unsigned total = ((bits + 63) / 64) * 64;
  return x >> (total - bits);
}

// Random exact rational: varied numerator/denominator sizes, sign and binary scale,
// plus special values.
inline Rational random_rational(Rng& g) {
  switch (below(g, 10)) {
    case 0: return Rational(0);
    case 1: return Rational(below(g, 2) ? 1 : -1);
    case 2: return Rational(below(g, 2) ? 1 : -1, 3);
    default: break;
  }
  Integer num = random_integer(g, 1 + static_cast<unsigned>(below(g, 80)));
  Integer den = random_integer(g, 1 + static_cast<unsigned>(below(g, 80))) + 1;
  Rational r = Rational(num) / Rational(den);
  if (below(g, 2)) r = -r;
  if (below(g, 3) == 0) r *= pow2(static_cast<long>(below(g, 41)) - 20);
  return r;
}

inline Rational random_positive(Rng& g) {
  Rational r;
  do r = abs(random_rational(g));
  while (r == 0);
  return r;
}

// Random point of [lo, hi], endpoints included with positive probability.
inline Rational random_point(Rng& g, const Rational& lo, const Rational& hi) {
  switch (below(g, 6)) {
    case 0: return lo;
    case 1: return hi;
    default: break;
  }
  Integer den = random_integer(g, 1 + static_cast<unsigned>(below(g, 40))) + 1;
  Integer num = random_integer(g, 64) % (den + 1);
  return lo + (hi - lo) * Rational(num) / Rational(den);
}

// A point of the interval actually represented (its exact float endpoints).
inline Rational random_member(Rng& g, const Interval& x) { return random_point(g, x.lower(), x.upper()); }

inline constexpr unsigned kPrecisions[] = {1, 2, 3, 7, 24, 53, 64, 113, 200};
inline unsigned random_precision(Rng& g) { return kPrecisions[below(g, std::size(kPrecisions))]; }

inline Interval random_interval(Rng& g) {
  unsigned p = random_precision(g);
  Rational a = random_rational(g);
  switch (below(g, 4)) {
    case 0: return Interval(a, p);  // point enclosure
    case 1: return Interval::hull(a, a + abs(random_rational(g)) * pow2(-40), p);  // narrow
    default: {
      Rational b = random_rational(g);
      return a <= b ? Interval::hull(a, b, p) : Interval::hull(b, a, p);
    }
  }
}

}  // namespace seqi_test::interval
