// Which malloc the programs run on. With SEQI_JEMALLOC (the default build) they link jemalloc:
// GMP's one-limb numerator and denominator arrays (8 bytes) then cost 8 bytes each instead of
// glibc's 32-byte minimum chunk, which roughly halves the peak memory of large runs.
#pragma once
#include <string>

namespace seqi {

// "jemalloc <version>" when linked against it, else "the C library's malloc".
std::string malloc_implementation();

}  // namespace seqi
