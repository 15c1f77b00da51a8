// Reader for IDX files (the format of MNIST and Fashion-MNIST), plain or gzip-compressed.
//
// Layout: a 4-byte big-endian magic 0x0000TTRR (two zero bytes, a type code TT, the rank RR),
// then RR big-endian uint32 dimensions, then the data in C order. Only unsigned bytes
// (TT = 0x08) are supported: images have magic 0x00000803 ([count, rows, cols]) and labels
// 0x00000801 ([count]). A .gz file is decompressed transparently (zlib's gzread also reads
// uncompressed files, so the suffix does not matter).
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "seqi/core/dataset.hpp"
#include "seqi/core/input_error.hpp"

namespace seqi {

struct IdxArray {
  std::vector<std::uint32_t> dims;  // e.g. {60000, 28, 28}
  std::vector<std::uint8_t> data;   // product(dims) bytes, C order
};

// Arrays larger than this (in bytes) are refused before allocation.
inline constexpr std::uint64_t kMaxIdxBytes = std::uint64_t{1} << 31;  // 2 GiB

// Throws InputError naming `path` on: a missing or unreadable file, a corrupt gzip stream,
// a wrong magic, an unsupported element type, rank 0, a dimension product that overflows or
// exceeds kMaxIdxBytes, truncated data, or bytes after the data.
IdxArray read_idx(const std::string& path);

}  // namespace seqi
