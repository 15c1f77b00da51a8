// Exit 3 for every failure to obtain a resource, with a message, never an abort.
#pragma once
#include <iosfwd>
#include <string>

namespace seqi {

// Call inside a catch (...) block. For the current exception when it is a resource failure
// (std::bad_alloc, std::length_error, std::system_error such as a thread that cannot start,
// ResourceError such as no file descriptor left) prints "<program>: ..." with `advice` to
// `err` and returns 3 (kOutOfMemory); any other exception is rethrown.
int resource_failure_exit(std::ostream& err, const std::string& program, const std::string& advice);

}  // namespace seqi
