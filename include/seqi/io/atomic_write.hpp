// Every output file of seqi is written through here: a regular file is replaced atomically
// (temporary file in the same directory, every write checked, fsync, rename, fsync of the
// directory), so a reader or a crash at any moment sees either the old file or the complete
// new one. A non-regular existing target (/dev/stdout, a FIFO, /dev/full) is written directly,
// every write still checked.
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
