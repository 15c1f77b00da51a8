// Scheduling priority of a helper thread that should use only the cores other work leaves idle.
#pragma once

namespace seqi {

// Gives the calling thread the lowest scheduling priority (nice 19 on Linux; no effect where the
// platform offers none). Changes only when the thread runs, never what it computes.
void lower_this_threads_priority();

}  // namespace seqi
