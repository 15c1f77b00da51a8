#include "seqi/io/quote_value.hpp"

namespace seqi {

std::string quote_value(std::string_view s, std::size_t max_chars) {
  static constexpr char kHex[] = "0123456789abcdef";
  const std::string_view shown = s.substr(0, max_chars);
  std::string q = "\"";
  for (char ch : shown) {
    const auto c = static_cast<unsigned char>(ch);
    switch (c) {
      case '"': q += "\\\""; break;
      case '\\': q += "\\\\"; break;
      case '\n': q += "\\n"; break;
      case '\t': q += "\\t"; break;
      case '\r': q += "\\r"; break;
      default:
        if (c >= 0x20 && c < 0x7f) {
          q += ch;
        } else {
          q += "\\x";
          q += kHex[c >> 4];
          q += kHex[c & 0xF];
        }
    }
  }
  q += '"';
  if (shown.size() < s.size()) q += "... (" + std::to_string(s.size()) + " bytes)";
  return q;
}

}  // namespace seqi
