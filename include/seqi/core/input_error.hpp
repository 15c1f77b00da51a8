// Bad input: the message names the file, pair, token and coordinate where known, what is
// wrong and what to do. Maps to exit code 2.
#pragma once
#include <stdexcept>
#include <string>

namespace seqi {

struct InputError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// Throws InputError("source: message"): the file (or stream) first, then what is wrong.
[[noreturn]] inline void throw_input_error(const std::string& source, const std::string& message) {
  throw InputError(source + ": " + message);
}

}  // namespace seqi
