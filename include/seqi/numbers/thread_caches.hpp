// MPFR keeps per-thread caches (constants such as log 2, pi); a worker thread must free its
// own before it ends, or they are lost with the thread.
#pragma once

namespace seqi {

// Frees the calling thread's MPFR caches and hands its small-limb pool lists to the other
// threads (seqi/numbers/small_limb_pool.hpp). Call last in every worker thread that may have
// used numbers.
void release_thread_number_caches();

}  // namespace seqi
