// Unsigned integer options (--seed, --patch, --count, --mask) read from their text, so that a
// negative or out-of-range value is refused showing what was typed, never wrapped.
#pragma once
#include <cstdint>
#include <optional>
#include <string>

namespace seqi {

// The value of `text` when it is a decimal integer from 0 to 2^64-1 (digits only, no sign).
inline std::optional<std::uint64_t> unsigned_option_value(const std::string& text) {
  if (text.empty() || text.size() > 20 || text.find_first_not_of("0123456789") != std::string::npos ||
      (text.size() == 20 && text > "18446744073709551615"))
    return std::nullopt;
  return std::stoull(text);
}

}  // namespace seqi
