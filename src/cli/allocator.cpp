#include "seqi/cli/allocator.hpp"

#include <cstddef>

#ifdef SEQI_WITH_JEMALLOC
#include <jemalloc/jemalloc.h>

// jemalloc's options, read at its start (MALLOC_CONF in the environment still overrides them).
// retain:false gives freed address space back instead of keeping it mapped for reuse: under a
// virtual-memory limit (ulimit -v, common on clusters) retained mappings made small runs fail
// with "out of memory" at random (test_hardening); time and peak memory are unchanged.
// narenas:1: one arena for every thread (each keeps its own small cache). With an arena per
// worker, memory freed by one thread's arena was not reused by the next phase's threads: all
// 70,000 Fashion-MNIST images on 2 threads peaked at 8.2 GiB instead of 6.4 GiB, no faster.
extern "C" {
// NOLINTNEXTLINE(cppcoreguidelines-avoid-non-const-global-variables): jemalloc's own hook
const char* malloc_conf = "retain:false,narenas:1";
}
#endif

namespace seqi {

std::string malloc_implementation() {
#ifdef SEQI_WITH_JEMALLOC
  const char* version = nullptr;
  std::size_t length = sizeof version;
  if (mallctl("version", static_cast<void*>(&version), &length, nullptr, 0) == 0 && version)
    return std::string("jemalloc ") + version;
  return "jemalloc";
#else
  return "the C library's malloc";
#endif
}

}  // namespace seqi
