// MPFR keeps per-thread caches (constants such as log 2, pi); a worker thread must free its
// own before it ends, or they are lost with the thread.
#pragma once

namespace seqi {

// Frees the calling thread's MPFR caches. Call last in every worker thread that may have used
// intervals.
void release_thread_number_caches();

}  // namespace seqi
