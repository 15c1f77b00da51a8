#include "seqi/io/idx.hpp"
#include "seqi/core/input_error.hpp"

#include <zlib.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <memory>
#include <type_traits>

namespace seqi {
namespace {

struct GzCloser {
  void operator()(gzFile f) const { gzclose(f); }
};
using GzPtr = std::unique_ptr<std::remove_pointer_t<gzFile>, GzCloser>;

// Reads up to `size` bytes; returns how many were read (fewer only at the end of the data).
std::size_t read_some(gzFile file, void* buffer, std::size_t size, const std::string& path) {
  auto* out = static_cast<unsigned char*>(buffer);
  std::size_t total = 0;
  while (total < size) {
    // gzread takes an unsigned count; read in chunks of at most 1 GiB.
    const unsigned chunk = static_cast<unsigned>(std::min<std::size_t>(size - total, std::size_t{1} << 30));
    const int got = gzread(file, out + total, chunk);
    if (got < 0) {
      int code = 0;
      const char* what = gzerror(file, &code);
      throw_input_error(path, std::string("cannot decompress or read the IDX data (") + (what ? what : "zlib error") +
                     "). The file is corrupt; download it again or reinstall the package.");
    }
    if (got == 0) break;
    total += static_cast<std::size_t>(got);
  }
  return total;
}

std::uint32_t big_endian_u32(const unsigned char* b) {
  return (std::uint32_t{b[0]} << 24) | (std::uint32_t{b[1]} << 16) | (std::uint32_t{b[2]} << 8) |
         std::uint32_t{b[3]};
}

const char* type_name(unsigned code) {
  switch (code) {
    case 0x08: return "unsigned byte";
    case 0x09: return "signed byte";
    case 0x0B: return "16-bit integer";
    case 0x0C: return "32-bit integer";
    case 0x0D: return "32-bit float";
    case 0x0E: return "64-bit float";
    default: return nullptr;
  }
}

std::string hex_magic(const unsigned char* b) {
  static const char* digits = "0123456789abcdef";
  std::string s = "0x";
  for (int k = 0; k < 4; ++k) s += digits[b[k] >> 4], s += digits[b[k] & 15];
  return s;
}

}  // namespace

IdxArray read_idx(const std::string& path) {
  namespace fs = std::filesystem;
  std::error_code ec;
  const auto status = fs::status(path, ec);
  if (status.type() == fs::file_type::not_found)
    throw_input_error(path, "the IDX file does not exist. Check the path (e.g. train-images-idx3-ubyte.gz).");
  if (fs::is_directory(status)) throw_input_error(path, "is a directory, not an IDX file.");

  GzPtr file(gzopen(path.c_str(), "rb"));
  if (!file)
    throw_input_error(path, std::string("cannot open the IDX file (") + std::strerror(errno ? errno : EIO) +
                   "). Check that it exists and is readable.");
  gzbuffer(file.get(), 1u << 17);

  unsigned char magic[4];
  const std::size_t got_magic = read_some(file.get(), magic, 4, path);
  if (got_magic < 4)
    throw_input_error(path, "truncated: the file has " + std::to_string(got_magic) +
                   " bytes, fewer than the 4-byte IDX magic number.");
  if (magic[0] != 0 || magic[1] != 0)
    throw_input_error(path, "wrong magic number " + hex_magic(magic) +
                   ": an IDX file starts with two zero bytes, a type code and the rank "
                   "(0x00000803 for images, 0x00000801 for labels). Is this an IDX file?");
  const unsigned type = magic[2], rank = magic[3];
  if (type != 0x08) {
    const char* name = type_name(type);
    throw_input_error(path, "unsupported IDX element type 0x" + hex_magic(magic).substr(6, 2) +
                   (name ? std::string(" (") + name + ")" : std::string(" (not an IDX type code)")) +
                   "; only unsigned bytes (0x08, magic 0x00000801 / 0x00000803) are supported.");
  }
  if (rank == 0) throw_input_error(path, "the IDX rank (4th byte of the magic number) is 0; expected 1 (labels) or 3 (images).");

  IdxArray out;
  out.dims.resize(rank);
  std::uint64_t total = 1;
  for (unsigned k = 0; k < rank; ++k) {
    unsigned char b[4];
    if (read_some(file.get(), b, 4, path) < 4)
      throw_input_error(path, "truncated: the header ends inside dimension " + std::to_string(k + 1) + " of " +
                     std::to_string(rank) + ".");
    out.dims[k] = big_endian_u32(b);
    // Overflow-safe product, bounded by kMaxIdxBytes.
    if (out.dims[k] != 0 && total > kMaxIdxBytes / out.dims[k])
      throw_input_error(path, "the dimensions describe more than " + std::to_string(kMaxIdxBytes) +
                     " bytes of data (dimension " + std::to_string(k + 1) + " is " +
                     std::to_string(out.dims[k]) + "); the header is corrupt or the file too large.");
    total *= out.dims[k];
  }

  // An uncompressed file's size is known: the header is checked against it before any data is
  // read. A compressed one grows as it is read, so a header that lies costs no memory.
  const std::uint64_t header_bytes = 4 + 4 * std::uint64_t{rank};
  const auto truncated = [&](std::uint64_t got) {
    std::string shape;
    for (unsigned k = 0; k < rank; ++k) shape += (k ? " x " : "") + std::to_string(out.dims[k]);
    throw_input_error(path, "truncated: the header announces " + shape + " = " + std::to_string(total) +
                                " bytes of data but only " + std::to_string(got) +
                                " follow. Download the file again or reinstall the package.");
  };
  if (const auto size = fs::file_size(path, ec); gzdirect(file.get()) == 1 && !ec && size < header_bytes + total)
    truncated(size < header_bytes ? 0 : size - header_bytes);
  std::size_t got = 0;
  while (got < total) {
    const std::size_t step = static_cast<std::size_t>(std::min<std::uint64_t>(total - got, std::uint64_t{1} << 24));
    out.data.resize(got + step);
    const std::size_t n = read_some(file.get(), out.data.data() + got, step, path);
    got += n;
    if (n < step) break;
  }
  out.data.resize(got);
  if (got < total) truncated(got);
  unsigned char extra;
  if (read_some(file.get(), &extra, 1, path) != 0)
    throw_input_error(path, "has bytes after the " + std::to_string(total) +
                   " bytes of data announced by its header; the file is not a single IDX array.");
  return out;
}

}  // namespace seqi
