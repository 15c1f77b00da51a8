// Every output file of seqi is written through here: a regular file is replaced atomically
// (temporary file in the same directory, every write checked, fsync, rename, fsync of the
// directory), so a reader or a crash at any moment sees either the old file or the complete
// new one. The path is resolved first (output_target.hpp): a symbolic link is followed and
// its target replaced, the link kept; this process's descriptors (/dev/stdout, /dev/fd/N)
// are written as such; character devices and FIFOs (/dev/null, /dev/full) are written
// directly, every write still checked; /proc and /sys entries, block devices and sockets are
// refused.
#pragma once
#include <functional>
#include <iosfwd>
#include <string>

namespace seqi {

// Writes what `write` puts into the stream to `path`. `kind` names the file in messages
// ("model", "dataset", "certificate"). Throws InputError naming the path and the system's
// reason when the file cannot be created, written, flushed, synced or moved into place;
// on failure the temporary file is removed and an existing target is left untouched.
void write_file_atomically(const std::string& path, const std::string& kind,
                           const std::function<void(std::ostream&)>& write);

}  // namespace seqi
