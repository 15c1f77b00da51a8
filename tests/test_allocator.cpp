// The programs' malloc (seqi/cli/allocator.hpp): with SEQI_JEMALLOC the test binaries, like
// verify, run on jemalloc, and GMP's one-limb arrays cost 8 bytes there (the memory figures
// rest on that); without it, the C library's malloc is named.
#include <boost/test/unit_test.hpp>

#include <gmp.h>
#include <malloc.h>

#include <cstdlib>
#include <memory>
#include <string>

#include "seqi/cli/allocator.hpp"
#include "seqi/numbers/rational.hpp"

#ifdef SEQI_WITH_JEMALLOC
#include <jemalloc/jemalloc.h>
#endif

BOOST_AUTO_TEST_SUITE(test_allocator)

using namespace seqi;

namespace {

// Usable bytes of a fresh allocation of `bytes` (what the allocator really reserves for it).
std::size_t usable_size_of_allocation(std::size_t bytes) {
  const std::unique_ptr<void, decltype(&std::free)> p(std::malloc(bytes), &std::free);
  return p ? malloc_usable_size(p.get()) : 0;
}

}  // namespace

BOOST_AUTO_TEST_CASE(the_allocator_is_named) {
  const std::string name = malloc_implementation();
#ifdef SEQI_WITH_JEMALLOC
  BOOST_TEST(name.rfind("jemalloc ", 0) == 0, name);
  BOOST_TEST(name.size() > std::string("jemalloc ").size(), name);
#else
  BOOST_TEST(name == "the C library's malloc");
#endif
}

BOOST_AUTO_TEST_CASE(small_gmp_limbs_cost_what_the_build_promises) {
  const Rational q(Rational(3) / 7);
  const mpq_srcptr raw = q.backend().data();
  for (const mpz_srcptr part : {mpq_numref(raw), mpq_denref(raw)}) {
    const std::size_t asked = static_cast<std::size_t>(part->_mp_alloc) * sizeof(mp_limb_t);
    const std::size_t usable = malloc_usable_size(part->_mp_d);
    BOOST_TEST(usable >= asked);
#ifdef SEQI_WITH_JEMALLOC
    if (asked <= 16) BOOST_TEST(usable == asked);  // GMP allocates through jemalloc: no 24-byte chunk
#endif
  }
#ifdef SEQI_WITH_JEMALLOC
  BOOST_TEST(usable_size_of_allocation(8) == 8u);
  BOOST_TEST(usable_size_of_allocation(16) == 16u);
#else
  BOOST_TEST(usable_size_of_allocation(8) >= 8u);
#endif
}

#ifdef SEQI_WITH_JEMALLOC
// allocator.cpp's malloc_conf took effect: freed address space is returned (ulimit -v runs),
// and all threads share one arena.
BOOST_AUTO_TEST_CASE(jemalloc_options_took_effect) {
  bool retain = true;
  std::size_t length = sizeof retain;
  BOOST_TEST_REQUIRE(mallctl("opt.retain", static_cast<void*>(&retain), &length, nullptr, 0) == 0);
  BOOST_TEST(!retain);
  unsigned arenas = 0;
  length = sizeof arenas;
  BOOST_TEST_REQUIRE(mallctl("opt.narenas", static_cast<void*>(&arenas), &length, nullptr, 0) == 0);
  BOOST_TEST(arenas == 1u);  // one arena shared by all threads: freed memory is reused across phases
}
#endif

BOOST_AUTO_TEST_SUITE_END()
