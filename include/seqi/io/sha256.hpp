// SHA-256 (nettle) as lowercase hex.
#pragma once
#include <string>
#include <string_view>
#include "seqi/core/input_error.hpp"

namespace seqi {

std::string sha256_hex(std::string_view bytes);

// Streams the file; throws InputError when it cannot be read.
std::string sha256_hex_of_file(const std::string& path);

}  // namespace seqi
