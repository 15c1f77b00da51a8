// Input file reading for every input file, with the same located messages: whole files, or
// a size checked first and then only the parts a reader needs.
#pragma once
#include <cstdint>
#include <cstdio>
#include <memory>
#include <optional>
#include <string>
#include "seqi/core/input_error.hpp"

namespace seqi {

using InputFile = std::unique_ptr<std::FILE, int (*)(std::FILE*)>;

// Refuses a missing path, a directory, or a regular file of more than max_bytes (InputError).
// Returns the size of a regular file, nullopt for a pipe or device (no size known ahead).
std::optional<std::uintmax_t> checked_input_size(const std::string& path, std::uintmax_t max_bytes, const std::string& kind,
                                                 const std::string& hint = "");

// Opens `path` for reading. Throws ResourceError when the system is out of file descriptors
// or memory, InputError for any other reason.
InputFile open_input_file(const std::string& path, const std::string& kind);

// The next n bytes of `file`; throws InputError naming `path` and `what` ("the header") on a
// short read or a read error.
std::string read_exactly(std::FILE* file, std::size_t n, const std::string& path, const std::string& what);

// Reads `path` (regular file or pipe), refusing a missing path, a directory, an unreadable
// file or more than max_bytes. `kind` names the file in messages ("dataset", ".npy", "model");
// `hint` follows "Check the path" (e.g. " (datasets are .json files)"). Throws InputError,
// or ResourceError (see open_input_file).
std::string read_file_limited(const std::string& path, std::uintmax_t max_bytes, const std::string& kind,
                              const std::string& hint = "");

}  // namespace seqi
