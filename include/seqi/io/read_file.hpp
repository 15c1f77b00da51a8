// Whole-file reading for every input file, with the same located messages.
#pragma once
#include <cstdint>
#include <string>
#include "seqi/core/input_error.hpp"

namespace seqi {

// Reads `path` (regular file or pipe), refusing a missing path, a directory, an unreadable
// file or more than max_bytes. `kind` names the file in messages ("dataset", ".npy", "model");
// `hint` follows "Check the path" (e.g. " (datasets are .json files)"). Throws InputError.
std::string read_file_limited(const std::string& path, std::uintmax_t max_bytes, const std::string& kind,
                              const std::string& hint = "");

}  // namespace seqi
