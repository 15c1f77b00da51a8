// NarrowInts (seqi/core/narrow_ints.hpp), against a plain std::vector<int64_t> oracle: every
// value reads back exactly, the store is the narrowest that holds them, and range() (kept up
// to date, not recomputed) equals the oracle's smallest and largest value after every append,
// scale and clear. Seeded: SEQI_SEED=<n> replays a run.
#include <boost/test/unit_test.hpp>

#include <algorithm>
#include <cstdint>
#include <limits>
#include <vector>

#include "seeded_oracles.hpp"
#include "seqi/core/narrow_ints.hpp"
#include "seqi/core/rng.hpp"

BOOST_AUTO_TEST_SUITE(test_narrow_ints)

namespace {

std::uint64_t below(seqi::Rng& rng, std::uint64_t n) { return rng.next() % n; }  // bias irrelevant here

std::size_t narrowest_width(const std::vector<std::int64_t>& v) {
  std::size_t w = 2;
  for (const std::int64_t x : v) {
    if (x < std::numeric_limits<std::int32_t>::min() || x > std::numeric_limits<std::int32_t>::max()) return 8;
    if (x < std::numeric_limits<std::int16_t>::min() || x > std::numeric_limits<std::int16_t>::max()) w = 4;
  }
  return w;
}

void expect_same(const seqi::NarrowInts& got, const std::vector<std::int64_t>& want, std::size_t widest) {
  BOOST_REQUIRE(got.size() == want.size());
  for (std::size_t k = 0; k < want.size(); ++k) BOOST_TEST(got[k] == want[k]);
  const auto [lo, hi] = got.range();
  if (want.empty()) {
    BOOST_TEST(lo == 0);
    BOOST_TEST(hi == 0);
  } else {
    BOOST_TEST(lo == *std::min_element(want.begin(), want.end()));
    BOOST_TEST(hi == *std::max_element(want.begin(), want.end()));
  }
  BOOST_TEST(got.width() == std::max(widest, narrowest_width(want)));  // widened, never narrowed
}

}  // namespace

BOOST_AUTO_TEST_CASE(values_width_and_range_follow_the_oracle) {
  const std::uint64_t seed = seqi::testing::base_seed("narrow_ints");
  seqi::Rng rng(seed);
  for (int run = 0; run < 200; ++run) {
    seqi::NarrowInts got;
    std::vector<std::int64_t> want;
    std::size_t widest = 2;
    for (int op = 0; op < 40; ++op) {
      const std::uint64_t kind = below(rng, 10);
      if (kind == 0) {  // scale by a small positive factor while every product fits
        const std::int64_t s = 1 + static_cast<std::int64_t>(below(rng, 4));
        const bool fits = std::all_of(want.begin(), want.end(), [&](std::int64_t x) {
          return x <= std::numeric_limits<std::int64_t>::max() / s && x >= std::numeric_limits<std::int64_t>::min() / s;
        });
        if (!fits) continue;
        got.scale(s);
        for (auto& x : want) x *= s;
      } else if (kind == 1 && below(rng, 4) == 0) {
        got.clear();
        want.clear();
        widest = 2;
      } else {  // a row of 1 to 3 values of one of three magnitudes, either sign
        std::vector<std::int64_t> row(1 + below(rng, 3));
        const std::uint64_t bound[] = {100, 100000, std::uint64_t{1} << 40};
        for (auto& x : row) {
          x = static_cast<std::int64_t>(below(rng, bound[below(rng, 3)]));
          if (below(rng, 2)) x = -x;
        }
        got.append(row);
        want.insert(want.end(), row.begin(), row.end());
      }
      widest = std::max(widest, narrowest_width(want));
      expect_same(got, want, widest);
    }
  }
}

BOOST_AUTO_TEST_SUITE_END()
