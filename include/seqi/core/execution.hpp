// How a run executes, passed down explicitly (no global state): the progress reporter
// (nullable), the number of threads for per-sequence work, and the processes that share it
// (nullable; verify-mpi, seqi/core/sharding.hpp). None of them changes any result.
#pragma once
#include "seqi/core/progress.hpp"

namespace seqi {

class Sharding;

struct Execution {
  Progress* progress = nullptr;
  unsigned threads = 1;
  const Sharding* sharding = nullptr;
};

}  // namespace seqi
