// Helpers shared by the importer suites (test_import, test_import_datasets): a private scratch
// directory (plain and gzip-compressed files) and the bytes of IDX and .npy files built by hand.
#pragma once
#include <boost/test/unit_test.hpp>

#include <unistd.h>
#include <zlib.h>

#include <algorithm>
#include <bit>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>
#include <system_error>
#include <vector>

namespace seqi_test::import_io {

namespace fs = std::filesystem;

using Bytes = std::string;  // raw bytes

struct TempDir {
  fs::path path;
  TempDir() {
    path = fs::temp_directory_path() / ("seqi-import-" + std::to_string(::getpid()));
    fs::create_directories(path);
  }
  ~TempDir() {
    std::error_code ec;
    fs::remove_all(path, ec);
  }
  std::string write(const std::string& name, const Bytes& bytes) const {
    std::ofstream(path / name, std::ios::binary) << bytes;
    return (path / name).string();
  }
  std::string write_gz(const std::string& name, const Bytes& bytes) const {
    const std::string p = (path / name).string();
    gzFile f = gzopen(p.c_str(), "wb");
    BOOST_REQUIRE(f != nullptr);
    BOOST_REQUIRE(gzwrite(f, bytes.data(), static_cast<unsigned>(bytes.size())) == static_cast<int>(bytes.size()));
    gzclose(f);
    return p;
  }
  std::string file(const std::string& name) const { return (path / name).string(); }
};

inline const TempDir& tmp() {
  static TempDir dir;
  return dir;
}

inline Bytes be32(std::uint32_t v) {
  return Bytes{static_cast<char>(v >> 24), static_cast<char>(v >> 16), static_cast<char>(v >> 8), static_cast<char>(v)};
}

// An IDX file: magic 0x0000 08 rank, dims, data.
inline Bytes idx_bytes(const std::vector<std::uint32_t>& dims, const Bytes& data, unsigned type = 0x08) {
  Bytes b{0, 0, static_cast<char>(type), static_cast<char>(dims.size())};
  for (auto d : dims) b += be32(d);
  return b + data;
}

// A .npy file: version major, dict text padded with spaces to a multiple of `align`, then data.
inline Bytes npy_bytes(const std::string& descr, const std::string& shape, const Bytes& data, int major = 1,
                std::size_t align = 64, const std::string& fortran = "False") {
  std::string dict = "{'descr': '" + descr + "', 'fortran_order': " + fortran + ", 'shape': " + shape + ", }";
  const std::size_t preamble = major == 1 ? 10 : 12;
  std::size_t total = preamble + dict.size() + 1;
  while (total % align) ++total, dict += ' ';
  dict += '\n';
  Bytes b = "\x93NUMPY";
  b += static_cast<char>(major);
  b += '\0';
  const std::size_t len = dict.size();
  b += static_cast<char>(len & 0xFF);
  b += static_cast<char>((len >> 8) & 0xFF);
  if (major != 1) b += static_cast<char>((len >> 16) & 0xFF), b += static_cast<char>((len >> 24) & 0xFF);
  return b + dict + data;
}

template <class T>
inline Bytes raw(const std::vector<T>& v, bool big = false) {
  Bytes b;
  for (const T& x : v) {
    char c[sizeof(T)];
    std::memcpy(c, &x, sizeof(T));
    if (big == (std::endian::native == std::endian::little)) std::reverse(c, c + sizeof(T));
    b.append(c, sizeof(T));
  }
  return b;
}

}  // namespace seqi_test::import_io
