// SHA-256 (nettle) as lowercase hex.
#pragma once
#include <string>
#include <string_view>

namespace seqi {

std::string sha256_hex(std::string_view bytes);

}  // namespace seqi
