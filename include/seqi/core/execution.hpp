// How a run executes, passed down explicitly (no global state): the progress reporter
// (nullable), the number of threads for per-sequence work, and the processes that share it
// (nullable; verify-mpi, seqi/core/sharding.hpp). None of them changes any result. Which
// float statements (lem:float-run) accompany the certificate is asked here too: leaving one
// out leaves its claim out, never changes another.
#pragma once
#include "seqi/core/progress.hpp"

namespace seqi {

class Sharding;

struct Execution {
  Progress* progress = nullptr;
  unsigned threads = 1;
  const Sharding* sharding = nullptr;
  bool float64_statement = true;
  bool float32_statement = true;
};

}  // namespace seqi
