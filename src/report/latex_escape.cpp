#include "seqi/report/latex_escape.hpp"

#include <cctype>
#include <cstdio>
#include <cstring>

namespace seqi {

namespace {

// A character typeset literally in the upright typewriter font (right glyph in OT1 and T1;
// \normalfont avoids the pound sign that italic typewriter has at the dollar's slot).
std::string tt_char(int code) { return "{\\normalfont\\ttfamily\\char" + std::to_string(code) + "}"; }

std::string bracketed(const char* fmt, unsigned value) {
  char buf[32];
  std::snprintf(buf, sizeof buf, fmt, value);
  return std::string("{[}") + buf + "{]}";
}

// Length of the valid UTF-8 sequence starting at s[i] (2..4) and its code point, or 0.
std::size_t utf8_sequence(const std::string& s, std::size_t i, unsigned& cp) {
  const auto byte = [&](std::size_t k) { return static_cast<unsigned char>(s[k]); };
  const unsigned char b = byte(i);
  std::size_t len = 0;
  unsigned min = 0;
  if (b >= 0xC2 && b <= 0xDF) len = 2, cp = b & 0x1Fu, min = 0x80;
  else if (b >= 0xE0 && b <= 0xEF) len = 3, cp = b & 0x0Fu, min = 0x800;
  else if (b >= 0xF0 && b <= 0xF4) len = 4, cp = b & 0x07u, min = 0x10000;
  else return 0;
  if (i + len > s.size()) return 0;
  for (std::size_t k = 1; k < len; ++k) {
    if ((byte(i + k) & 0xC0u) != 0x80u) return 0;
    cp = (cp << 6) | (byte(i + k) & 0x3Fu);
  }
  if (cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return 0;
  return len;
}

// `breakable`: also allow line breaks after some punctuation and inside long runs of digits and
// symbols (for paths, check details and other long strings in narrow table columns).
std::string escape(const std::string& s, bool breakable) {
  std::string out;
  out.reserve(s.size() + s.size() / 4);
  std::size_t run = 0;
  for (std::size_t i = 0; i < s.size();) {
    const unsigned char c = static_cast<unsigned char>(s[i]);
    std::size_t consumed = 1;
    bool space = false;
    switch (c) {
      case '\\': out += "\\textbackslash{}"; break;
      case '{': out += "\\{"; break;
      case '}': out += "\\}"; break;
      case '$': out += tt_char('$'); break;
      case '&': out += "\\&"; break;
      case '#': out += "\\#"; break;
      case '^': out += tt_char('^'); break;
      case '_': out += tt_char('_'); break;
      case '%': out += "\\%"; break;
      case '~': out += tt_char('~'); break;
      case '<': out += "\\textless{}"; break;
      case '>': out += "\\textgreater{}"; break;
      case '|': out += "\\textbar{}"; break;
      case '[': out += "{[}"; break;
      case ']': out += "{]}"; break;
      case ' ': case '\t': case '\n': case '\r': case '\f': case '\v':
        out += ' ';
        space = true;
        break;
      default:
        if (c < 0x20 || c == 0x7F) {
          out += bracketed("0x%02X", c);
        } else if (c < 0x80) {
          out += static_cast<char>(c);
        } else {
          unsigned cp = 0;
          const std::size_t len = utf8_sequence(s, i, cp);
          if (len) {
            out += bracketed("U+%04X", cp);
            consumed = len;
          } else {
            out += bracketed("0x%02X", c);
          }
        }
    }
    i += consumed;
    if (space || std::isalpha(c)) {
      run = 0;  // words break at spaces or by hyphenation
    } else if (breakable && (++run >= 12 || (c && std::strchr("/,;:=_)", static_cast<int>(c))))) {
      out += "\\allowbreak{}";
      run = 0;
    }
  }
  return out;
}

}  // namespace

std::string latex_escape(const std::string& s) { return escape(s, false); }

std::string latex_escape_breakable(const std::string& s) { return escape(s, true); }

}  // namespace seqi
