// The one random source of the engine: seeded, fully specified, the same stream on every
// platform, so every generic choice is reproducible from the recorded seed.
#pragma once
#include <cstdint>

#include "seqi/numbers/rational.hpp"

namespace seqi {

// SplitMix64: a small, fully specified generator (same stream on every platform).
class Rng {
 public:
  explicit Rng(std::uint64_t seed) : state_(seed) {}
  std::uint64_t next();
  // Uniform-ish integer in [-range, range] (modulo bias is irrelevant for genericity).
  Integer integer_in(const Integer& range);
  Point integer_vector(int d, const Integer& range);

 private:
  std::uint64_t state_;
};

}  // namespace seqi
