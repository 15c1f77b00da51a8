#include "seqi/core/low_priority.hpp"

#if defined(__linux__)
#include <sys/resource.h>
#include <unistd.h>
#endif

namespace seqi {

void lower_this_threads_priority() {
#if defined(__linux__)
  // Linux keeps a nice value per thread: PRIO_PROCESS with a thread id sets that thread's only.
  (void)setpriority(PRIO_PROCESS, static_cast<id_t>(gettid()), 19);  // a refusal only costs speed
#endif
}

}  // namespace seqi
