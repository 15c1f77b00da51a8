// The safetensors container (https://github.com/huggingface/safetensors), written and read
// here without the library:
//   8 bytes: N, the header length, unsigned little-endian;
//   N bytes: a JSON object {name: {"dtype": "F64", "shape": [..], "data_offsets": [b, e]}, ...,
//            "__metadata__": {string: string}} (may end in spaces);
//   the byte buffer: each tensor's raw little-endian C-order data at [b, e) of the buffer.
// The tensors' byte ranges must cover the buffer exactly, without gaps or overlaps.
#pragma once
#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "seqi/numbers/rational.hpp"

namespace seqi {

struct SafeTensor {
  std::string dtype;               // "F64", "F32", "F16", "BF16" (others are refused when converted)
  std::vector<std::size_t> shape;  // C order; empty for a scalar
  std::string bytes;               // raw little-endian data, product(shape) * element size
};

struct SafetensorsFile {
  std::map<std::string, SafeTensor> tensors;
  std::map<std::string, std::string> metadata;  // "__metadata__"
};

// Header sizes above this are refused before parsing (the reference library uses 100 MB).
inline constexpr std::uint64_t kMaxSafetensorsHeaderBytes = std::uint64_t{100} << 20;

// A tensor of float64 values (exactly these doubles).
SafeTensor f64_tensor(const std::vector<double>& values, std::vector<std::size_t> shape);

// The whole file as bytes; the header is padded with spaces to a multiple of 8 bytes.
std::string encode_safetensors(const SafetensorsFile& file);

// A validated header: each tensor's dtype and shape (bytes empty) and its byte range in the
// buffer, sorted by offset, the ranges covering the buffer exactly.
struct SafetensorsHeader {
  struct Range {
    std::string name;
    SafeTensor tensor;
    std::uint64_t begin = 0, end = 0;
  };
  std::vector<Range> tensors;
  std::map<std::string, std::string> metadata;  // "__metadata__"
};

// N from the first 8 bytes of a file of file_size bytes. Throws InputError naming `source` on
// a file shorter than 8 bytes or N above kMaxSafetensorsHeaderBytes or beyond the file.
std::uint64_t safetensors_header_length(std::string_view first_bytes, std::uint64_t file_size, const std::string& source);

// Parses the N header bytes against a buffer of buffer_size bytes. Throws InputError naming
// `source` (and the tensor) on malformed JSON, nesting or a key twice (json_limits.hpp), a
// missing or malformed dtype/shape/data_offsets, a byte range that does not match the shape
// and dtype, ranges that overlap, leave gaps or leave the buffer, and non-string metadata.
SafetensorsHeader decode_safetensors_header(std::string_view header_text, std::uint64_t buffer_size,
                                            const std::string& source);

// Parses and validates a whole file held in memory (the checks of both functions above).
SafetensorsFile decode_safetensors(std::string_view bytes, const std::string& source);

// Reads a safetensors file: from a regular file, the length and the header first, checked
// against the file's size before any tensor byte is read; then only the tensors' bytes.
// Pipes are read whole (at most max_bytes). Throws InputError, or ResourceError.
SafetensorsFile read_safetensors_file(const std::string& path, std::uint64_t max_bytes);

// The exact rational denoted by every element (F64, F32, F16, BF16), in C order. Throws
// InputError naming `source`, `name` and the flat index on NaN or infinity, or on another dtype.
std::vector<Rational> exact_tensor_values(const SafeTensor& t, const std::string& source, const std::string& name);

}  // namespace seqi
