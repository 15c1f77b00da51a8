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

// Parses and validates a whole file. Throws InputError naming `source` (and the tensor) on a
// short file, a header longer than the file or than kMaxSafetensorsHeaderBytes, malformed
// JSON, a missing or malformed dtype/shape/data_offsets, a byte range that does not match
// the shape and dtype, ranges that overlap, leave gaps or leave the buffer, and non-string
// metadata.
SafetensorsFile decode_safetensors(std::string_view bytes, const std::string& source);

// The exact rational denoted by every element (F64, F32, F16, BF16), in C order. Throws
// InputError naming `source`, `name` and the flat index on NaN or infinity, or on another dtype.
std::vector<Rational> exact_tensor_values(const SafeTensor& t, const std::string& source, const std::string& name);

}  // namespace seqi
