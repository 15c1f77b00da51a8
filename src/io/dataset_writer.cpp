#include "seqi/io/dataset_writer.hpp"
#include "seqi/core/input_error.hpp"

#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <ostream>

namespace seqi {
namespace {

void write_sequence(const Sequence& seq, std::ostream& out) {
  out << '[';
  for (std::size_t t = 0; t < seq.size(); ++t) {
    if (t) out << ", ";
    out << '[';
    for (Eigen::Index k = 0; k < seq[t].size(); ++k) {
      if (k) out << ", ";
      out << '"' << to_string(seq[t][k]) << '"';  // digits, '-' and '/': no escaping needed
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
  namespace fs = std::filesystem;
  const fs::path target(path);
  if (fs::is_directory(target))
    throw InputError(path + ": is a directory; give the path of the .json file to write.");
  // Regular files are replaced atomically; anything else (e.g. /dev/stdout) is written directly.
  std::error_code ec;
  const bool direct = fs::exists(target, ec) && !fs::is_regular_file(target, ec);
  const fs::path tmp = direct ? target
                              : fs::path(path + ".tmp-" + std::to_string(::getpid()));
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    if (!out)
      throw InputError(path + ": cannot write the dataset file (" + std::strerror(errno) +
                       "). Check that the directory exists and is writable.");
    write_dataset_json(data, out);
    out.flush();
    if (!out) {
      const std::string why = std::strerror(errno);
      out.close();
      if (!direct) fs::remove(tmp, ec);
      throw InputError(path + ": error while writing the dataset file (" + why + ").");
    }
  }
  if (!direct) {
    fs::rename(tmp, target, ec);
    if (ec) {
      std::error_code ignored;
      fs::remove(tmp, ignored);
      throw InputError(path + ": cannot move the written file into place (" + ec.message() + ").");
    }
  }
}

}  // namespace seqi
