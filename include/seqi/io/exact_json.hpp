// JSON parsing that keeps every number exact: each JSON number is replaced by a JSON string
// holding its decimal text (as written), to be read with parse_rational.
#pragma once
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>
#include "seqi/core/input_error.hpp"

namespace seqi {

// Throws InputError naming `source`, line and column on malformed JSON.
nlohmann::json parse_exact_json(std::string_view text, const std::string& source);

}  // namespace seqi
