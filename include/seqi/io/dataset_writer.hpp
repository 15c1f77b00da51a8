// Writes a dataset in the JSON format read by read_dataset_file (seqi/io/dataset_json.hpp):
//   {"name": "...", "dimension": d,
//    "pairs": [{"input": [["p/q", ...], ...], "output": [[...], ...]}, ...],
//    "notes": ["...", ...]}
// Every coordinate is a JSON string holding the exact rational "p/q" (or "p") in lowest
// terms, so reading the file back gives exactly the same dataset. "notes" (present only when
// data.notes is non-empty) is ignored by the reader.
#pragma once
#include <iosfwd>
#include <string>

#include "seqi/core/dataset.hpp"
#include "seqi/core/input_error.hpp"

namespace seqi {

void write_dataset_json(const Dataset& data, std::ostream& out);

// Writes to a temporary file next to `path` and renames it into place, so a failed write
// never leaves a partial dataset. Throws InputError naming `path` when it cannot be written.
void write_dataset_json(const Dataset& data, const std::string& path);

}  // namespace seqi
