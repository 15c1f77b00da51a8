#include "seqi/io/atomic_write.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>

#include "seqi/core/input_error.hpp"

namespace seqi {
namespace {

namespace fs = std::filesystem;

std::string reason(int err) { return std::string(" (") + std::strerror(err) + ")"; }

// Flushes `fd`'s data to the device; the descriptor is closed either way.
int sync_and_close(int fd) {
  int err = ::fsync(fd) == 0 ? 0 : errno;
  if (::close(fd) != 0 && err == 0) err = errno;
  return err;
}

// Creates a fresh temporary file next to `target` (O_EXCL, mode 0666 & ~umask) and returns
// its path.
fs::path create_temporary(const fs::path& target, const std::string& kind) {
  const fs::path dir = target.parent_path().empty() ? fs::path(".") : target.parent_path();
  for (unsigned attempt = 0;; ++attempt) {
    fs::path tmp = dir / ("." + target.filename().string() + ".tmp-" + std::to_string(::getpid()) + "-" +
                                std::to_string(attempt));
    const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
    if (fd >= 0) {
      ::close(fd);
      return tmp;
    }
    if (errno != EEXIST || attempt > 1000)
      throw_input_error(target.string(), "cannot write the " + kind + " file: cannot create a temporary file in " + dir.string() +
                                reason(errno) + ". Check that the directory exists and is writable.");
  }
}

// Writes into `file` (truncating) and checks every step up to a successful fsync.
void write_checked(const fs::path& file, const std::string& shown, const std::string& kind,
                   const std::function<void(std::ostream&)>& write) {
  {
    std::ofstream out(file, std::ios::binary | std::ios::trunc);
    if (!out)
      throw_input_error(shown, "cannot write the " + kind + " file" + reason(errno) +
                      ". Check that the directory exists and is writable.");
    errno = 0;
    write(out);
    out.flush();
    if (!out) throw_input_error(shown, "error while writing the " + kind + " file" + (errno ? reason(errno) : std::string()) + ".");
    out.close();
    if (!out) throw_input_error(shown, "error while closing the " + kind + " file" + (errno ? reason(errno) : std::string()) + ".");
  }
  const int fd = ::open(file.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return;  // write-only targets (some devices): nothing to sync
  if (const int err = sync_and_close(fd); err != 0 && err != EINVAL && err != EROFS)
    throw_input_error(shown, "cannot flush the " + kind + " file to disk" + reason(err) + ".");
}

}  // namespace

void write_file_atomically(const std::string& path, const std::string& kind,
                           const std::function<void(std::ostream&)>& write) {
  const fs::path target(path);
  std::error_code ec;
  const fs::file_status status = fs::status(target, ec);
  if (fs::is_directory(status))
    throw InputError(path + ": is a directory; give the path of the " + kind + " file to write.");
  if (fs::exists(status) && !fs::is_regular_file(status)) {  // a device or FIFO: no rename possible
    write_checked(target, path, kind, write);
    return;
  }
  const fs::path tmp = create_temporary(target, kind);
  try {
    write_checked(tmp, path, kind, write);
  } catch (...) {
    fs::remove(tmp, ec);
    throw;
  }
  if (::rename(tmp.c_str(), target.c_str()) != 0) {
    const int err = errno;
    fs::remove(tmp, ec);
    throw_input_error(path, "cannot move the written " + kind + " file into place" + reason(err) + ".");
  }
  // Make the rename itself durable.
  const fs::path dir = target.parent_path().empty() ? fs::path(".") : target.parent_path();
  if (const int fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC); fd >= 0) sync_and_close(fd);
}

}  // namespace seqi
