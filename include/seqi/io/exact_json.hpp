// JSON parsing under the limits of json_limits.hpp. parse_exact_json keeps every number
// exact: each JSON number is replaced by a JSON string holding its decimal text (as
// written), to be read with parse_rational.
#pragma once
#include <cstddef>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>
#include "seqi/core/input_error.hpp"

namespace seqi {

// Throws InputError naming `source` on malformed JSON (with the byte position), a NUL byte
// anywhere, bytes after the value, nesting deeper than kMaxJsonDepth, or a key repeated
// within one object (json_limits.hpp). Never recurses proportionally to the input.
nlohmann::json parse_exact_json(std::string_view text, const std::string& source);

// The same limits, numbers kept as JSON numbers (safetensors headers, tool inputs).
nlohmann::json parse_limited_json(std::string_view text, const std::string& source);

// Throws InputError naming `source` and the byte when the text holds a NUL byte (never valid
// in JSON; nlohmann's lexer would take it for the end of the input).
void refuse_nul_bytes(std::string_view text, const std::string& source);

}  // namespace seqi
