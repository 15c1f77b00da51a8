// A safetensors file read in the order its checks need: the length, the header checked
// against the file's size, and only then the tensors' bytes.
#include <cstdio>

#include "seqi/io/read_file.hpp"
#include "seqi/io/safetensors.hpp"

namespace seqi {

SafetensorsFile read_safetensors_file(const std::string& path, std::uint64_t max_bytes) {
  const auto size = checked_input_size(path, max_bytes, "model");
  if (!size) return decode_safetensors(read_file_limited(path, max_bytes, "model"), path);  // a pipe: no size ahead
  const InputFile file = open_input_file(path, "model");
  const std::string first = read_exactly(file.get(), *size < 8 ? *size : 8, path, "the header length");
  const std::uint64_t n = safetensors_header_length(first, *size, path);
  const std::string header_text = read_exactly(file.get(), n, path, "the header");
  SafetensorsHeader header = decode_safetensors_header(header_text, *size - 8 - n, path);
  // The header covers the rest of the file exactly, in offset order: read each range in turn.
  SafetensorsFile out{{}, std::move(header.metadata)};
  for (auto& e : header.tensors) {
    e.tensor.bytes = read_exactly(file.get(), e.end - e.begin, path, "tensor \"" + e.name + "\"");
    out.tensors.emplace(e.name, std::move(e.tensor));
  }
  return out;
}

}  // namespace seqi
