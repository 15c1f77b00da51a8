#include "seqi/io/atomic_write.hpp"

#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>

#include "seqi/io/dataset.hpp"

namespace seqi {

void write_file_atomically(const std::string& path, const std::string& kind,
                           const std::function<void(std::ostream&)>& write) {
  namespace fs = std::filesystem;
  const fs::path target(path);
  if (fs::is_directory(target))
    throw InputError(path + ": is a directory; give the path of the " + kind + " file to write.");
  std::error_code ec;
  const bool direct = fs::exists(target, ec) && !fs::is_regular_file(target, ec);
  const fs::path tmp = direct ? target : fs::path(path + ".tmp-" + std::to_string(::getpid()));
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    if (!out)
      throw InputError(path + ": cannot write the " + kind + " file (" + std::strerror(errno) +
                       "). Check that the directory exists and is writable.");
    write(out);
    out.flush();
    if (!out) {
      const std::string why = std::strerror(errno);
      out.close();
      if (!direct) fs::remove(tmp, ec);
      throw InputError(path + ": error while writing the " + kind + " file (" + why + ").");
    }
    out.close();
    if (!out) {
      if (!direct) fs::remove(tmp, ec);
      throw InputError(path + ": error while closing the " + kind + " file.");
    }
  }
  if (!direct) {
    fs::rename(tmp, target, ec);
    if (ec) {
      std::error_code ignored;
      fs::remove(tmp, ignored);
      throw InputError(path + ": cannot move the written " + kind + " file into place (" + ec.message() + ").");
    }
  }
}

}  // namespace seqi
