#include "seqi/io/output_target.hpp"

#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <filesystem>

#include "seqi/core/input_error.hpp"

namespace seqi {
namespace {

namespace fs = std::filesystem;

// `p` with its directory resolved (every link in it followed); the last component as given.
fs::path with_resolved_parent(const fs::path& p) {
  std::error_code ec;
  const fs::path parent = p.parent_path().empty() ? fs::path(".") : p.parent_path();
  fs::path resolved = fs::weakly_canonical(fs::absolute(parent, ec), ec);
  if (ec) resolved = fs::absolute(parent);
  return resolved / p.filename();
}

// N when `p` (parent resolved) is /proc/<this process>/fd/N or /proc/<this process>/task/<t>/fd/N.
int own_descriptor(const fs::path& p) {
  const std::string name = p.filename().string();
  if (name.empty() || name.size() > 9 || !std::all_of(name.begin(), name.end(), [](unsigned char c) { return std::isdigit(c); }))
    return -1;
  const std::string parent = p.parent_path().string();
  const std::string self = "/proc/" + std::to_string(::getpid());
  const bool task = parent.starts_with(self + "/task/") && parent.ends_with("/fd");
  return parent == self + "/fd" || task ? std::stoi(name) : -1;
}

bool under(const fs::path& p, const char* root) {
  const std::string s = p.string();
  return s == root || s.starts_with(std::string(root) + "/");
}

}  // namespace

OutputTarget resolve_output_target(const std::string& path, const std::string& kind) {
  fs::path p = with_resolved_parent(path);
  for (int links = 0;; ++links) {
    if (const int fd = own_descriptor(p); fd >= 0) return {OutputTarget::descriptor, p.string(), fd};
    std::error_code ec;
    if (!fs::is_symlink(fs::symlink_status(p, ec))) break;
    if (links == 40) throw_input_error(path, "too many levels of symbolic links. Give the path of the " + kind + " file.");
    const fs::path link = fs::read_symlink(p, ec);
    if (ec) throw_input_error(path, "cannot read the symbolic link " + p.string() + " (" + ec.message() + ").");
    p = with_resolved_parent(link.is_absolute() ? link : p.parent_path() / link);
  }
  const std::string shown = p.string() == fs::absolute(path).string() ? std::string() : " (it leads to " + p.string() + ")";
  if (under(p, "/proc") || under(p, "/sys"))
    throw_input_error(path, "is a /proc or /sys entry" + shown + ", not a file for the " + kind +
                                ". Give a regular file, a FIFO or a device such as /dev/stdout.");
  std::error_code ec;
  const fs::file_status status = fs::status(p, ec);
  switch (status.type()) {
    case fs::file_type::directory:
      throw_input_error(path, "is a directory" + shown + "; give the path of the " + kind + " file to write.");
    case fs::file_type::block:
      throw_input_error(path, "is a block device" + shown + "; the " + kind + " is never written onto a disk device.");
    case fs::file_type::socket:
      throw_input_error(path, "is a socket" + shown + "; give a regular file, a FIFO or a character device.");
    case fs::file_type::character:
    case fs::file_type::fifo: return {OutputTarget::direct, p.string(), -1};
    default: return {OutputTarget::replace, p.string(), -1};
  }
}

}  // namespace seqi
