// A resource the run needs could not be obtained (file descriptors, memory the system refused,
// threads): the input may be valid. Maps to exit code 3, like std::bad_alloc.
#pragma once
#include <cerrno>
#include <stdexcept>
#include <string>

namespace seqi {

struct ResourceError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// errno values that say the system ran out of something, not that the path or data is bad.
inline bool is_resource_shortage(int err) { return err == EMFILE || err == ENFILE || err == ENOMEM || err == ENOBUFS; }

}  // namespace seqi
