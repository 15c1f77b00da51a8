#define BOOST_TEST_MODULE small_limb_pool
// The small-limb pool (seqi/numbers/small_limb_pool.hpp) behind GMP's memory functions: blocks
// are distinct and hold what was written, blocks freed by other threads are reused, and exact
// arithmetic on many threads gives the values an independent 64-bit oracle computes.
#include <boost/test/unit_test.hpp>

#include <cstdint>
#include <cstring>
#include <set>
#include <vector>

#include "seqi/core/parallel.hpp"
#include "seqi/numbers/gmp_out_of_memory.hpp"
#include "seqi/numbers/rational.hpp"
#include "seqi/numbers/small_limb_pool.hpp"

using namespace seqi;

BOOST_AUTO_TEST_CASE(blocks_are_distinct_aligned_and_keep_their_contents) {
  std::vector<std::pair<unsigned char*, std::size_t>> blocks;
  std::set<unsigned char*> seen;
  for (std::size_t k = 0; k < 5000; ++k) {
    const std::size_t bytes = 1 + k % kSmallLimbBytes;
    auto* p = static_cast<unsigned char*>(allocate_small_limbs(bytes));
    BOOST_TEST_REQUIRE(p != nullptr);
    BOOST_TEST(reinterpret_cast<std::uintptr_t>(p) % 8 == 0u);
    BOOST_TEST(seen.insert(p).second);
    std::memset(p, static_cast<int>(k % 251), bytes);
    blocks.emplace_back(p, bytes);
  }
  for (std::size_t k = 0; k < blocks.size(); ++k)
    for (std::size_t b = 0; b < blocks[k].second; ++b) BOOST_TEST_REQUIRE(blocks[k].first[b] == k % 251);
  for (auto [p, bytes] : blocks) release_small_limbs(p, bytes);
  // Freed blocks come back (last freed first, per size class) before any new slab space.
  const std::size_t last_bytes = blocks.back().second;
  void* again = allocate_small_limbs(last_bytes);
  BOOST_TEST(again == static_cast<void*>(blocks.back().first));
  release_small_limbs(again, last_bytes);
}

BOOST_AUTO_TEST_CASE(exact_arithmetic_on_threads_through_the_pool_matches_a_64_bit_oracle) {
  exit_on_gmp_out_of_memory("test_small_limb_pool", 3);  // GMP now allocates through the pool
  // Values made on threads and freed on other threads (the vector is filled by one call and
  // overwritten by the next), for several thread counts.
  std::vector<Rational> kept(4000);
  for (unsigned threads : {1u, 2u, 3u, 4u})
    for_each_index(kept.size(), threads, [&](std::size_t j) {
      const auto a = static_cast<std::int64_t>(j) + 1, b = static_cast<std::int64_t>(threads) + 2;
      Rational x(a, b), y(a * a, b * b + 1), big = Rational(Integer(1) << 200, 3);
      kept[j] = x * y + big - big;  // a 4-limb temporary on the way
    });
  for (std::size_t j = 0; j < kept.size(); ++j) {
    // Oracle: (a/b) (a^2/(b^2+1)) in lowest terms, in 64-bit integers (b = 6 for 4 threads).
    const std::int64_t a = static_cast<std::int64_t>(j) + 1, b = 6;
    std::int64_t num = a * a * a, den = b * (b * b + 1);
    std::int64_t g = num, h = den;
    while (h != 0) g %= h, std::swap(g, h);
    BOOST_TEST_REQUIRE(kept[j] == Rational(num / g, den / g), "j " << j);
  }
}
