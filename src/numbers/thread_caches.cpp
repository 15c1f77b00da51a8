#include "seqi/numbers/thread_caches.hpp"

#include <mpfr.h>

namespace seqi {

void release_thread_number_caches() { mpfr_free_cache2(MPFR_FREE_LOCAL_CACHE); }

}  // namespace seqi
