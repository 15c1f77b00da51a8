#include "seqi/io/read_file.hpp"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <vector>

#include "seqi/core/dataset.hpp"
#include "seqi/core/input_error.hpp"
#include "seqi/core/resource_error.hpp"

namespace seqi {
namespace {

std::string limit_text(std::uintmax_t max_bytes) {
  return "the limit of " + std::to_string(max_bytes) + " bytes (" + std::to_string(max_bytes >> 20) + " MiB)";
}

}  // namespace

std::optional<std::uintmax_t> checked_input_size(const std::string& path, std::uintmax_t max_bytes, const std::string& kind,
                                                 const std::string& hint) {
  namespace fs = std::filesystem;
  std::error_code ec;
  const fs::file_status status = fs::status(path, ec);
  if (status.type() == fs::file_type::not_found)
    throw_input_error(path, "the " + kind + " file does not exist. Check the path" + hint + ".");
  if (ec) throw_input_error(path, "cannot access the " + kind + " file (" + ec.message() + ").");
  if (fs::is_directory(status)) throw_input_error(path, "is a directory, not a " + kind + " file. Give the path of a " + kind + " file.");
  if (!fs::is_regular_file(status)) return std::nullopt;
  const std::uintmax_t size = fs::file_size(path, ec);
  if (ec) return std::nullopt;
  if (size > max_bytes)
    throw_input_error(path, "the file is " + std::to_string(size) + " bytes, larger than " + limit_text(max_bytes) +
                                ". Split or reduce it.");
  return size;
}

InputFile open_input_file(const std::string& path, const std::string& kind) {
  InputFile file(std::fopen(path.c_str(), "rb"), &std::fclose);
  if (!file) {
    const int err = errno;
    if (is_resource_shortage(err))
      throw ResourceError(path + ": cannot open the " + kind + " file: " + std::strerror(err) +
                          " (the system's limit on open files or memory). Raise the limit (ulimit -n) or free memory.");
    throw_input_error(path, "cannot open the " + kind + " file (" + std::strerror(err) + "). Check that it exists and is readable.");
  }
  return file;
}

std::string read_exactly(std::FILE* file, std::size_t n, const std::string& path, const std::string& what) {
  std::string bytes(n, '\0');
  const std::size_t got = n ? std::fread(bytes.data(), 1, n, file) : 0;
  if (got != n)
    throw_input_error(path, std::ferror(file) ? "error while reading " + what + " (" + std::strerror(errno) + ")."
                                              : "the file ended after " + std::to_string(got) + " of the " +
                                                    std::to_string(n) + " bytes of " + what + " (truncated file?).");
  return bytes;
}

std::string read_file_limited(const std::string& path, std::uintmax_t max_bytes, const std::string& kind,
                              const std::string& hint) {
  checked_input_size(path, max_bytes, kind, hint);
  const InputFile file = open_input_file(path, kind);
  // Chunks, with the limit enforced while reading (pipes have no size).
  std::string text;
  std::vector<char> chunk(std::size_t{1} << 20);
  while (true) {
    const std::size_t got = std::fread(chunk.data(), 1, chunk.size(), file.get());
    text.append(chunk.data(), got);
    if (text.size() > max_bytes) throw_input_error(path, "the file is larger than " + limit_text(max_bytes) + ". Split or reduce it.");
    if (got < chunk.size()) break;
  }
  if (std::ferror(file.get()))
    throw_input_error(path, "error while reading the " + kind + " file (" + std::strerror(errno) + ").");
  return text;
}

}  // namespace seqi
