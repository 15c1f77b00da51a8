#include "seqi/io/sha256.hpp"

#include <nettle/sha2.h>

#include <array>
#include <cerrno>
#include <cstring>
#include <fstream>

#include "seqi/core/dataset.hpp"
#include "seqi/core/input_error.hpp"

namespace seqi {
namespace {

std::string hex_digest(sha256_ctx& ctx) {
  std::array<std::uint8_t, SHA256_DIGEST_SIZE> digest{};
  sha256_digest(&ctx, digest.size(), digest.data());
  static constexpr char kHex[] = "0123456789abcdef";
  std::string hex;
  for (std::uint8_t b : digest) {
    hex.push_back(kHex[b >> 4]);
    hex.push_back(kHex[b & 0xF]);
  }
  return hex;
}

}  // namespace

std::string sha256_hex(std::string_view bytes) {
  sha256_ctx ctx;
  sha256_init(&ctx);
  sha256_update(&ctx, bytes.size(), reinterpret_cast<const std::uint8_t*>(bytes.data()));
  return hex_digest(ctx);
}

std::string sha256_hex_of_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError(path + ": cannot open the file to compute its SHA-256 (" + std::strerror(errno) + ")");
  sha256_ctx ctx;
  sha256_init(&ctx);
  std::array<char, 1 << 16> buf{};
  while (in) {
    in.read(buf.data(), static_cast<std::streamsize>(buf.size()));
    const std::streamsize got = in.gcount();
    if (got > 0) sha256_update(&ctx, static_cast<std::size_t>(got), reinterpret_cast<const std::uint8_t*>(buf.data()));
  }
  if (in.bad()) throw InputError(path + ": read error while computing its SHA-256");
  return hex_digest(ctx);
}

}  // namespace seqi
