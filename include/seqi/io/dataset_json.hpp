// Exact reader for dataset files in JSON:
//   {"name": "...", "dimension": d,
//    "pairs": [{"input": [[c, ...], ...], "output": [[c, ...], ...]}, ...]}
// A coordinate c is a JSON string holding an exact rational ("-3/7", "2", "0.125", "1e-3")
// or a JSON number, read exactly from its decimal text (never through a binary float).
// "name" is optional (default: the file stem); other unknown keys are ignored.
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "seqi/core/dataset.hpp"
#include "seqi/core/input_error.hpp"

namespace seqi {

// The largest "dimension" (and token size) a dataset may have.
inline constexpr std::size_t kMaxDimension = 1000000;

// Files larger than this are refused before reading.
// The importers' writer refuses to write a larger file, so both limits agree.
inline constexpr std::uintmax_t kMaxDatasetFileBytes = std::uintmax_t{1} << 30;  // 1 GiB

// Reads a dataset file. Throws InputError with a message naming the file, and where relevant
// the pair (1-based), "input"/"output", token (1-based) and coordinate (1-based), what is
// wrong, and what to do. The returned dataset satisfies check_hypotheses.
// With threads >= 2 the validating and the storing pass run at once (same result, same error).
Dataset read_dataset_file(const std::string& path, unsigned threads = 1);

// Same from text already in memory; `source` names it in messages (and its stem is the
// default name).
Dataset parse_dataset_json(std::string_view text, const std::string& source, unsigned threads = 1);

// The storing pass alone (it checks all that the validating pass checks, so the same result and
// the same error), for a text that another process validates beside it (verify-mpi): a bad
// file may then cost up to the memory of a good one of its size, as with threads >= 2.
Dataset parse_dataset_json_stored_only(std::string_view text, const std::string& source);

}  // namespace seqi
