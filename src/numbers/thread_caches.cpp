#include "seqi/numbers/thread_caches.hpp"

#include <mpfr.h>

#include "seqi/numbers/small_limb_pool.hpp"

namespace seqi {

void release_thread_number_caches() {
  mpfr_free_cache2(MPFR_FREE_LOCAL_CACHE);
  give_back_small_limbs();
}

}  // namespace seqi
