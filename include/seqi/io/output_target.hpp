// Where an output path leads, decided before anything is written: symbolic links are
// followed (never replaced), an open descriptor of this process (/dev/stdout, /dev/fd/N,
// /proc/self/fd/N) is written as that descriptor, character devices and FIFOs are written
// directly, and /proc or /sys entries, block devices, sockets and directories are refused.
#pragma once
#include <string>

namespace seqi {

struct OutputTarget {
  enum How {
    replace,     // a regular file, or none yet: written atomically at `path`
    direct,      // a character device or FIFO: opened and written in place, non-atomically
    descriptor,  // an open descriptor of this process: written to `fd`, sharing its offset
  } how = replace;
  std::string path;  // the resolved path (every symbolic link followed)
  int fd = -1;       // how == descriptor
};

// Resolves `path` for writing the `kind` file ("model", "dataset", "certificate"). Throws
// InputError naming the path on a directory, a /proc or /sys entry that is not one of this
// process's descriptors, a block device, a socket, or a loop of symbolic links.
OutputTarget resolve_output_target(const std::string& path, const std::string& kind);

}  // namespace seqi
