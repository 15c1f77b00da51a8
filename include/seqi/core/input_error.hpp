// Bad input: the message names the file, pair, token and coordinate where known, what is
// wrong and what to do. Maps to exit code 2.
#pragma once
#include <stdexcept>

namespace seqi {

struct InputError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

}  // namespace seqi
