// How a run executes, passed down explicitly (no global state): the progress reporter
// (nullable) and the number of threads for per-sequence work. Neither changes any result.
#pragma once
#include "seqi/core/progress.hpp"

namespace seqi {

struct Execution {
  Progress* progress = nullptr;
  unsigned threads = 1;
};

}  // namespace seqi
