// Reader for NumPy .npy files (format versions 1.0, 2.0 and 3.0), without NumPy.
//
// Supported element types ("descr"): floats '<f2' '<f4' '<f8' (and '>' big-endian), signed
// integers '<i1' .. '<i8', unsigned '|u1' '<u2' .. '<u8' (any byte order prefix '<' '>' '|'
// '=' that is meaningful for the size). Only "fortran_order": False (C order). Every value
// becomes the exact rational it denotes: a float m * 2^e is read as exactly m * 2^e, never
// rounded to a decimal.
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "seqi/core/dataset.hpp"
#include "seqi/io/float_bits.hpp"  // exact_rational_of_double, ... (the conversions used here)
#include "seqi/numbers/rational.hpp"
#include "seqi/core/input_error.hpp"

namespace seqi {

struct NpyArray {
  std::vector<std::size_t> shape;  // C order; empty for a 0-d array (one value)
  std::vector<Rational> values;    // product(shape) values in C order
  std::string descr;               // the dtype as written in the header, e.g. "<f4"
};

// Files larger than this are refused before reading.
inline constexpr std::uintmax_t kMaxNpyFileBytes = std::uintmax_t{1} << 30;  // 1 GiB

// Throws InputError naming `path` on: a missing or unreadable file, a wrong magic, an
// unsupported format version, a malformed header, an unsupported dtype (e.g. complex '<c8',
// structured or object arrays), fortran_order True, truncated data or trailing bytes, and
// NaN or infinite values (naming the flat index and the multi-index of the first one).
NpyArray read_npy(const std::string& path);

// The bytes of a .npy file. From a regular file the preamble and header are read first and
// checked against the file's size (InputError) before any data byte is read; pipes are read
// whole. At most kMaxNpyFileBytes.
std::string read_npy_file(const std::string& path);

// Shape and dtype of a .npy file's bytes, after every check of read_npy that needs no value
// (magic, version, header, dtype, order, data size): consistency across files can be checked
// before any value is allocated.
struct NpyHeader {
  std::vector<std::size_t> shape;
  std::string descr;
};
NpyHeader npy_header(std::string_view bytes, const std::string& path);

// read_npy on bytes already read; `path` names them in messages.
NpyArray decode_npy(std::string_view bytes, const std::string& path);

// A shape as NumPy prints it: "(3, 4)", "(5,)", "()".
std::string npy_shape_text(const std::vector<std::size_t>& shape);

}  // namespace seqi
