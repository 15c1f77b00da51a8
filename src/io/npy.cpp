#include "seqi/io/npy.hpp"
#include "seqi/core/input_error.hpp"
#include "seqi/io/float_bits.hpp"
#include "seqi/io/read_file.hpp"

#include <algorithm>
#include <bit>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <limits>
#include <memory>
#include <string_view>
#include <vector>

namespace seqi {
namespace {

// ---------------------------------------------------------------- header

struct Header {
  std::string descr;
  bool structured = false;  // descr was a list (structured dtype)
  bool fortran_order = false;
  std::vector<std::size_t> shape;
};

// Parses the Python dict literal of a .npy header:
//   {'descr': '<f4', 'fortran_order': False, 'shape': (3, 4), }
class HeaderParser {
 public:
  HeaderParser(std::string_view text, const std::string& path) : s_(text), path_(path) {}

  Header parse() {
    Header h;
    bool seen_descr = false, seen_fortran = false, seen_shape = false;
    skip_ws();
    expect('{');
    while (true) {
      skip_ws();
      if (peek() == '}') { ++i_; break; }
      const std::string key = string_literal();
      skip_ws();
      expect(':');
      skip_ws();
      if (key == "descr") {
        if (peek() == '[') {
          const std::size_t start = i_;
          skip_balanced();
          h.descr = std::string(s_.substr(start, i_ - start));
          h.structured = true;
        } else {
          h.descr = string_literal();
        }
        seen_descr = true;
      } else if (key == "fortran_order") {
        h.fortran_order = boolean();
        seen_fortran = true;
      } else if (key == "shape") {
        h.shape = tuple();
        seen_shape = true;
      } else {
        error("unexpected key '" + key + "' (a .npy header has exactly 'descr', 'fortran_order' and 'shape')");
      }
      skip_ws();
      if (peek() == ',') { ++i_; continue; }
      skip_ws();
      expect('}');
      break;
    }
    skip_ws();
    if (i_ != s_.size()) error("unexpected text after the closing '}'");
    if (!seen_descr || !seen_fortran || !seen_shape)
      error(std::string("missing key '") + (!seen_descr ? "descr" : !seen_fortran ? "fortran_order" : "shape") + "'");
    return h;
  }

 private:
  [[noreturn]] void error(const std::string& what) const {
    std::string shown(s_.substr(0, 120));
    while (!shown.empty() && (shown.back() == '\n' || shown.back() == ' ')) shown.pop_back();
    throw_input_error(path_, "malformed .npy header at character " + std::to_string(i_ + 1) + ": " + what +
                    ". Header: " + shown + ". Write the file with numpy.save.");
  }
  char peek() const { return i_ < s_.size() ? s_[i_] : '\0'; }
  void skip_ws() {
    while (i_ < s_.size() && (s_[i_] == ' ' || s_[i_] == '\t' || s_[i_] == '\n' || s_[i_] == '\r')) ++i_;
  }
  void expect(char c) {
    if (peek() != c) error(std::string("expected '") + c + "'");
    ++i_;
  }
  std::string string_literal() {
    const char q = peek();
    if (q != '\'' && q != '"') error("expected a quoted string");
    ++i_;
    std::string out;
    while (i_ < s_.size() && s_[i_] != q) {
      if (s_[i_] == '\\' && i_ + 1 < s_.size()) ++i_;
      out += s_[i_++];
    }
    if (i_ >= s_.size()) error("unterminated string");
    ++i_;
    return out;
  }
  bool boolean() {
    if (s_.substr(i_, 4) == "True") { i_ += 4; return true; }
    if (s_.substr(i_, 5) == "False") { i_ += 5; return false; }
    error("expected True or False");
  }
  std::vector<std::size_t> tuple() {
    expect('(');
    std::vector<std::size_t> dims;
    while (true) {
      skip_ws();
      if (peek() == ')') { ++i_; break; }
      if (peek() < '0' || peek() > '9') error("expected a non-negative integer dimension");
      std::size_t v = 0;
      while (peek() >= '0' && peek() <= '9') {
        const std::size_t digit = static_cast<std::size_t>(peek() - '0');
        if (v > (std::numeric_limits<std::size_t>::max() - digit) / 10) error("dimension too large");
        v = v * 10 + digit;
        ++i_;
      }
      if (peek() == 'L') ++i_;  // Python 2 long literal
      dims.push_back(v);
      skip_ws();
      if (peek() == ',') { ++i_; continue; }
      skip_ws();
      expect(')');
      break;
    }
    return dims;
  }
  void skip_balanced() {
    int depth = 0;
    do {
      const char c = peek();
      if (c == '\0') error("unbalanced brackets");
      if (c == '\'' || c == '"') { string_literal(); continue; }
      if (c == '[' || c == '(') ++depth;
      if (c == ']' || c == ')') --depth;
      ++i_;
    } while (depth > 0);
  }

  std::string_view s_;
  const std::string& path_;
  std::size_t i_ = 0;
};

// ---------------------------------------------------------------- dtype

struct DType {
  char kind = 0;     // 'f', 'i', 'u', 'b'
  int size = 0;      // bytes
  bool big = false;  // big-endian storage
};

DType parse_dtype(const Header& h, const std::string& path) {
  const std::string supported =
      "Supported: '<f2' '<f4' '<f8', '<i1' '<i2' '<i4' '<i8', '|u1' '<u2' '<u4' '<u8', '|b1' "
      "(also big-endian '>'). Convert the array, e.g. numpy.save(path, x.astype(numpy.float64)).";
  if (h.structured)
    throw_input_error(path, "unsupported dtype " + h.descr + " (a structured array). " + supported);
  std::string d = h.descr;
  DType t;
  char order = '=';
  if (!d.empty() && (d[0] == '<' || d[0] == '>' || d[0] == '|' || d[0] == '=')) order = d[0], d = d.substr(1);
  auto unsupported = [&](const std::string& why) {
    throw_input_error(path, "unsupported dtype '" + h.descr + "' (" + why + "). " + supported);
  };
  if (d.size() < 2) unsupported("not a numeric type");
  t.kind = d[0];
  const std::string digits = d.substr(1);
  if (digits.find_first_not_of("0123456789") != std::string::npos || digits.size() > 2)
    unsupported("not a plain numeric type");
  t.size = std::stoi(digits);
  switch (t.kind) {
    case 'f':
      if (t.size != 2 && t.size != 4 && t.size != 8) unsupported(std::to_string(8 * t.size) + "-bit floats");
      break;
    case 'i':
    case 'u':
      if (t.size != 1 && t.size != 2 && t.size != 4 && t.size != 8) unsupported("integer size " + digits);
      break;
    case 'b':
      if (t.size != 1) unsupported("boolean size " + digits);
      break;
    case 'c': unsupported("complex numbers"); break;
    case 'O': unsupported("Python objects"); break;
    case 'S': case 'a': case 'U': unsupported("strings"); break;
    case 'M': case 'm': unsupported("dates or time deltas"); break;
    default: unsupported("unknown type code '" + std::string(1, t.kind) + "'");
  }
  if (order == '|' && t.size > 1) unsupported("byte order '|' for a multi-byte type");
  t.big = order == '>' || (order == '=' && std::endian::native == std::endian::big);
  return t;
}

std::string multi_index(std::size_t flat, const std::vector<std::size_t>& shape) {
  std::vector<std::size_t> idx(shape.size());
  for (std::size_t k = shape.size(); k-- > 0;) {
    idx[k] = shape[k] ? flat % shape[k] : 0;
    flat = shape[k] ? flat / shape[k] : 0;
  }
  std::string s = "[";
  for (std::size_t k = 0; k < idx.size(); ++k) s += (k ? ", " : "") + std::to_string(idx[k]);
  return s + "]";
}


// Where the values of a .npy file are, after every check that needs no value.
struct Layout {
  NpyHeader header;
  DType type;
  std::size_t data_start = 0, count = 0;
};

// `bytes` holds at least the preamble and header of a file of file_size bytes (or all of it).
Layout parse_layout(std::string_view bytes, std::size_t file_size, const std::string& path) {
  const auto* u = reinterpret_cast<const unsigned char*>(bytes.data());
  if (bytes.size() < 6 || std::memcmp(bytes.data(), "\x93NUMPY", 6) != 0)
    throw_input_error(path, "wrong magic: a .npy file starts with the 6 bytes \\x93NUMPY. Is this a .npy file "
               "(not .npz, text or pickle)? Write it with numpy.save.");
  if (bytes.size() < 10) throw_input_error(path, "truncated: the file ends inside the .npy preamble.");
  const int major = u[6], minor = u[7];
  std::size_t header_len = 0, header_start = 0;
  if (major == 1) {
    header_len = std::size_t{u[8]} | (std::size_t{u[9]} << 8);
    header_start = 10;
  } else if (major == 2 || major == 3) {
    if (bytes.size() < 12) throw_input_error(path, "truncated: the file ends inside the .npy preamble.");
    header_len = std::size_t{u[8]} | (std::size_t{u[9]} << 8) | (std::size_t{u[10]} << 16) |
                 (std::size_t{u[11]} << 24);
    header_start = 12;
  } else {
    throw_input_error(path, "unsupported .npy format version " + std::to_string(major) + "." + std::to_string(minor) +
                   " (supported: 1.0, 2.0, 3.0).");
  }
  if (file_size - header_start < header_len || bytes.size() - header_start < header_len)
    throw_input_error(path, "truncated: the header announces " + std::to_string(header_len) + " bytes but the file has only " +
                   std::to_string(file_size - header_start) + " after the preamble.");
  const std::string_view header_text(bytes.data() + header_start, header_len);
  if (major < 3)  // latin-1 header: only ASCII is meaningful
    for (unsigned char c : header_text)
      if (c >= 0x80) throw_input_error(path, "malformed .npy header: non-ASCII byte in a version 1/2 header.");
  const Header h = HeaderParser(header_text, path).parse();
  if (h.fortran_order)
    throw_input_error(path, "fortran_order is True; only C-order arrays are supported. Save numpy.ascontiguousarray(x).");
  const DType t = parse_dtype(h, path);

  std::size_t count = 1;
  for (std::size_t dim : h.shape) {
    if (dim != 0 && count > std::numeric_limits<std::size_t>::max() / dim)
      throw_input_error(path, "the shape in the header describes too many elements.");
    count *= dim;
  }
  const std::size_t data_start = header_start + header_len;
  const std::size_t available = file_size - data_start;
  if (count > available / static_cast<std::size_t>(t.size))
    throw_input_error(path, "truncated: the header announces shape " + npy_shape_text(h.shape) + " of '" + h.descr + "' = " +
                   std::to_string(count) + " values (" + std::to_string(t.size) + " bytes each) but only " +
                   std::to_string(available) + " data bytes follow.");
  if (available != count * static_cast<std::size_t>(t.size))
    throw_input_error(path, "has " + std::to_string(available - count * static_cast<std::size_t>(t.size)) +
                   " bytes after the data announced by its header; the file is not a single .npy array.");

  return {{h.shape, h.descr}, t, data_start, count};
}

}  // namespace

std::string npy_shape_text(const std::vector<std::size_t>& shape) {
  std::string s = "(";
  for (std::size_t k = 0; k < shape.size(); ++k) s += (k ? ", " : "") + std::to_string(shape[k]);
  return s + (shape.size() == 1 ? ",)" : ")");
}

NpyHeader npy_header(std::string_view bytes, const std::string& path) { return parse_layout(bytes, bytes.size(), path).header; }

std::string read_npy_file(const std::string& path) {
  const auto size = checked_input_size(path, kMaxNpyFileBytes, ".npy");
  if (!size) return read_file_limited(path, kMaxNpyFileBytes, ".npy");  // a pipe: no size ahead
  const InputFile file = open_input_file(path, ".npy");
  // The preamble (at most 12 bytes) gives the header's length; the header, checked against
  // the file's size, comes before any data byte is read.
  std::string bytes = read_exactly(file.get(), std::min<std::size_t>(*size, 12), path, "the .npy preamble");
  const auto* u = reinterpret_cast<const unsigned char*>(bytes.data());
  const std::size_t header_end = bytes.size() < 10 ? bytes.size()
                                 : u[6] == 1     ? 10 + (std::size_t{u[8]} | (std::size_t{u[9]} << 8))
                                 : bytes.size() < 12
                                     ? bytes.size()
                                     : 12 + (std::size_t{u[8]} | (std::size_t{u[9]} << 8) | (std::size_t{u[10]} << 16) |
                                             (std::size_t{u[11]} << 24));
  if (header_end > bytes.size() && header_end <= *size)
    bytes += read_exactly(file.get(), header_end - bytes.size(), path, "the .npy header");
  parse_layout(bytes, *size, path);
  return bytes + read_exactly(file.get(), *size - bytes.size(), path, "the .npy data");
}

NpyArray read_npy(const std::string& path) { return decode_npy(read_npy_file(path), path); }

NpyArray decode_npy(std::string_view bytes, const std::string& path) {
  const Layout layout = parse_layout(bytes, bytes.size(), path);
  const NpyHeader& h = layout.header;
  const DType& t = layout.type;
  const std::size_t count = layout.count;
  NpyArray out;
  out.shape = h.shape;
  out.descr = h.descr;
  out.values.resize(count);
  const unsigned char* p = reinterpret_cast<const unsigned char*>(bytes.data()) + layout.data_start;
  for (std::size_t k = 0; k < count; ++k, p += t.size) {
    const std::uint64_t raw = load_unsigned(p, t.size, t.big);
    Rational& v = out.values[k];
    switch (t.kind) {
      case 'u':
        v = Rational(Integer(raw));
        break;
      case 'b':
        if (raw > 1)
          throw_input_error(path, "value " + std::to_string(k) + " (index " + multi_index(k, h.shape) +
                         ") is not a valid boolean byte (" + std::to_string(raw) + ").");
        v = Rational(static_cast<long>(raw));
        break;
      case 'i': {
        // Sign-extend from t.size bytes.
        const int shift = 64 - 8 * t.size;
        const auto s = static_cast<std::int64_t>(raw << shift) >> shift;
        v = Rational(static_cast<long long>(s));
        break;
      }
      default: {
        const BitFormat f = t.size == 8 ? kBits64 : t.size == 4 ? kBits32 : kBits16;
        if (const char* name = nonfinite_name(raw, f))
          throw_input_error(path, "value " + std::to_string(k) + " (index " + multi_index(k, h.shape) + ") is " + name +
                         ", which is not a rational number. Replace NaN and infinite values with finite "
                         "numbers before importing.");
        v = exact_rational_of_bits(raw, f);
      }
    }
  }
  return out;
}

}  // namespace seqi
