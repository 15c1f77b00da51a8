// A value from a file or the command line, quoted for an error message: at most a fixed
// number of source characters, every byte outside printable ASCII escaped, so no input can
// put a control character, an ANSI escape or a NUL into a message.
#pragma once
#include <cstddef>
#include <string>
#include <string_view>

namespace seqi {

// The first characters of a quoted value in messages.
inline constexpr std::size_t kQuotedValueChars = 80;

// `"text"` with \", \\, \n, \t, \r and \xNN escapes for every other byte outside 0x20..0x7e;
// when `s` is longer than max_chars bytes, the first max_chars bytes followed by
// `..." (N bytes)`. The result never holds a control character and has O(max_chars) length.
std::string quote_value(std::string_view s, std::size_t max_chars = kQuotedValueChars);

}  // namespace seqi
