// Writing an output file so that readers never see a partial file.
#pragma once
#include <functional>
#include <ostream>
#include <string>

namespace seqi {

// Writes through `write` into a temporary file next to `path`, checks every write, then
// renames it onto `path` (atomic on POSIX). A path that exists and is not a regular file
// (e.g. /dev/stdout) is written directly. `kind` names the file in messages ("dataset",
// "model"). Throws InputError naming `path` on any failure; the temporary file is removed.
void write_file_atomically(const std::string& path, const std::string& kind,
                           const std::function<void(std::ostream&)>& write);

}  // namespace seqi
