#include "seqi/io/atomic_write.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <streambuf>

#include "seqi/core/input_error.hpp"
#include "seqi/core/resource_error.hpp"
#include "seqi/io/output_target.hpp"

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

// A stream buffer writing to a descriptor it does not own; the first failed write's errno is kept.
class DescriptorBuffer : public std::streambuf {
 public:
  explicit DescriptorBuffer(int fd) : fd_(fd) { setp(buffer_, buffer_ + sizeof buffer_); }
  int error() const { return error_; }

 protected:
  int_type overflow(int_type c) override {
    if (!drain()) return traits_type::eof();
    if (!traits_type::eq_int_type(c, traits_type::eof())) sputc(traits_type::to_char_type(c));
    return traits_type::not_eof(c);
  }
  int sync() override { return drain() ? 0 : -1; }

 private:
  bool drain() {
    for (const char* p = pbase(); p < pptr();) {
      const ssize_t n = ::write(fd_, p, static_cast<std::size_t>(pptr() - p));
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) {
        error_ = n < 0 ? errno : EIO;
        return false;
      }
      p += n;
    }
    setp(buffer_, buffer_ + sizeof buffer_);
    return true;
  }
  int fd_;
  int error_ = 0;
  char buffer_[1 << 16];
};

// Writes to this process's open descriptor `fd` (/dev/stdout, /dev/fd/N) after what the
// standard streams hold, so that the file written and the summary keep their order.
void write_to_descriptor(int fd, const std::string& shown, const std::string& kind,
                         const std::function<void(std::ostream&)>& write) {
  std::cout.flush();
  std::cerr.flush();
  DescriptorBuffer buffer(fd);
  std::ostream out(&buffer);
  write(out);
  out.flush();
  if (!out || buffer.error() != 0)
    throw_input_error(shown, "error while writing the " + kind + " file to descriptor " + std::to_string(fd) +
                                 (buffer.error() ? reason(buffer.error()) : std::string()) + ".");
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
    if (is_resource_shortage(errno))
      throw ResourceError(target.string() + ": cannot write the " + kind + " file: cannot create a temporary file" + reason(errno));
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
    if (!out && is_resource_shortage(errno))
      throw ResourceError(shown + ": cannot write the " + kind + " file" + reason(errno));
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
  std::error_code ec;
  if (!fs::is_regular_file(file, ec)) return;  // a device or FIFO (opening a FIFO to read would wait): no sync
  const int fd = ::open(file.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return;
  if (const int err = sync_and_close(fd); err != 0 && err != EINVAL && err != EROFS)
    throw_input_error(shown, "cannot flush the " + kind + " file to disk" + reason(err) + ".");
}

}  // namespace

void write_file_atomically(const std::string& path, const std::string& kind,
                           const std::function<void(std::ostream&)>& write) {
  const OutputTarget where = resolve_output_target(path, kind);
  if (where.how == OutputTarget::descriptor) return write_to_descriptor(where.fd, path, kind, write);
  if (where.how == OutputTarget::direct) return write_checked(where.path, path, kind, write);  // no rename possible
  // A symbolic link is followed: its target is replaced, the link itself stays.
  const fs::path target(where.path);
  std::error_code ec;
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
