#include "seqi/io/dataset_writer.hpp"
#include "seqi/core/input_error.hpp"
#include "seqi/io/atomic_write.hpp"
#include "seqi/io/dataset_json.hpp"

#include "seqi/io/atomic_write.hpp"
#include <nlohmann/json.hpp>
#include <ostream>

namespace seqi {
namespace {

// Seq: Sequence or TokenSequence.
template <class Seq>
void write_sequence(const Seq& seq, std::ostream& out) {
  out << '[';
  for (std::size_t t = 0; t < seq.size(); ++t) {
    if (t) out << ", ";
    out << '[';
    const auto& x = seq[t];  // a reference, or the decoded token (TokenSequence)
    for (Eigen::Index k = 0; k < x.size(); ++k) {
      if (k) out << ", ";
      out << '"' << to_string(x[k]) << '"';  // digits, '-' and '/': no escaping needed
    }
    out << ']';
  }
  out << ']';
}

}  // namespace

void write_dataset_json(const Dataset& data, std::ostream& out) {
  out << "{\"name\": " << nlohmann::json(data.name).dump() << ", \"dimension\": " << data.dimension
      << ",\n \"pairs\": [";
  for (std::size_t j = 0; j < data.pairs.size(); ++j) {
    out << (j ? ",\n  " : "\n  ") << "{\"input\": ";
    write_sequence(data.pairs[j].input, out);
    out << ",\n   \"output\": ";
    write_sequence(data.pairs[j].output, out);
    out << '}';
  }
  out << "\n ]";
  if (!data.notes.empty()) {
    out << ",\n \"notes\": [";
    for (std::size_t k = 0; k < data.notes.size(); ++k)
      out << (k ? ",\n  " : "\n  ") << nlohmann::json(data.notes[k]).dump();
    out << "\n ]";
  }
  out << "}\n";
}

void write_dataset_json(const Dataset& data, const std::string& path) {
  // A file verify would refuse to read is not written (the temporary file is discarded).
  write_file_atomically(path, "dataset", [&](std::ostream& out) {
    write_dataset_json(data, out);
    const auto bytes = static_cast<std::uintmax_t>(out.tellp());
    if (out && bytes > kMaxDatasetFileBytes)
      throw InputError(path + ": the dataset would be " + std::to_string(bytes) + " bytes, more than the " +
                       std::to_string(kMaxDatasetFileBytes >> 20) +
                       " MiB that verify reads; nothing was written. Import fewer sequences (e.g. a smaller --count).");
  });
}

}  // namespace seqi
