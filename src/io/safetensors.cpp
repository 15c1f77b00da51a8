#include "seqi/io/safetensors.hpp"

#include <algorithm>
#include <bit>
#include <cstring>
#include <limits>
#include <nlohmann/json.hpp>

#include "seqi/core/input_error.hpp"
#include "seqi/io/exact_json.hpp"
#include "seqi/io/float_bits.hpp"

namespace seqi {
namespace {

using json = nlohmann::json;

[[noreturn]] void fail(const std::string& source, const std::string& what) {
  throw InputError(source + ": " + what + ". Write the file with seqi (verify --save-model) or "
                   "python/seqi_torch.py save_transformer.");
}

// Bytes per element of a dtype name, 0 when unknown.
std::size_t element_size(const std::string& dtype) {
  static const std::map<std::string, std::size_t> sizes{
      {"F64", 8}, {"F32", 4}, {"F16", 2}, {"BF16", 2}, {"I64", 8}, {"I32", 4}, {"I16", 2},
      {"I8", 1},  {"U64", 8}, {"U32", 4}, {"U16", 2},  {"U8", 1},  {"BOOL", 1}, {"F8_E4M3", 1}, {"F8_E5M2", 1}};
  auto it = sizes.find(dtype);
  return it == sizes.end() ? 0 : it->second;
}

// product(shape), or nullopt on overflow.
std::optional<std::size_t> element_count(const std::vector<std::size_t>& shape) {
  std::size_t n = 1;
  for (std::size_t s : shape) {
    if (s != 0 && n > std::numeric_limits<std::size_t>::max() / s) return std::nullopt;
    n *= s;
  }
  return n;
}

std::string le_u64(std::uint64_t v) {
  std::string s(8, '\0');
  for (int k = 0; k < 8; ++k) s[static_cast<std::size_t>(k)] = static_cast<char>((v >> (8 * k)) & 0xff);
  return s;
}

using Entry = SafetensorsHeader::Range;

Entry parse_entry(const std::string& name, const json& v, const std::string& source) {
  const std::string where = "tensor \"" + name + "\"";
  if (!v.is_object()) fail(source, where + ": expected an object with dtype, shape and data_offsets");
  Entry e{name, {}, 0, 0};
  auto dt = v.find("dtype");
  if (dt == v.end() || !dt->is_string()) fail(source, where + ": missing or non-string \"dtype\"");
  e.tensor.dtype = dt->get<std::string>();
  const std::size_t size = element_size(e.tensor.dtype);
  if (size == 0) fail(source, where + ": unknown dtype \"" + e.tensor.dtype + "\"");
  auto sh = v.find("shape");
  if (sh == v.end() || !sh->is_array()) fail(source, where + ": missing \"shape\" (an array of integers)");
  for (const auto& s : *sh) {
    if (!s.is_number_unsigned()) fail(source, where + ": \"shape\" holds " + s.dump() + ", not a non-negative integer");
    e.tensor.shape.push_back(s.get<std::size_t>());
  }
  auto off = v.find("data_offsets");
  if (off == v.end() || !off->is_array() || off->size() != 2 || !(*off)[0].is_number_unsigned() ||
      !(*off)[1].is_number_unsigned())
    fail(source, where + ": \"data_offsets\" must be two non-negative integers [begin, end]");
  e.begin = (*off)[0].get<std::size_t>();
  e.end = (*off)[1].get<std::size_t>();
  if (e.end < e.begin) fail(source, where + ": data_offsets end " + std::to_string(e.end) + " < begin " + std::to_string(e.begin));
  const auto count = element_count(e.tensor.shape);
  if (!count || *count > std::numeric_limits<std::size_t>::max() / size || e.end - e.begin != *count * size)
    fail(source, where + ": data_offsets [" + std::to_string(e.begin) + ", " + std::to_string(e.end) + ") hold " +
                     std::to_string(e.end - e.begin) + " bytes, but its shape and dtype " + e.tensor.dtype + " need " +
                     (count ? std::to_string(*count) + " x " + std::to_string(size) : std::string("too many")));
  return e;
}

}  // namespace

SafeTensor f64_tensor(const std::vector<double>& values, std::vector<std::size_t> shape) {
  SafeTensor t{"F64", std::move(shape), {}};
  t.bytes.reserve(values.size() * 8);
  for (double v : values) t.bytes += le_u64(std::bit_cast<std::uint64_t>(v));
  return t;
}

std::string encode_safetensors(const SafetensorsFile& file) {
  json header = json::object();
  std::size_t offset = 0;
  for (const auto& [name, t] : file.tensors) {
    header[name] = {{"dtype", t.dtype}, {"shape", t.shape}, {"data_offsets", {offset, offset + t.bytes.size()}}};
    offset += t.bytes.size();
  }
  if (!file.metadata.empty()) header["__metadata__"] = file.metadata;
  std::string text = header.dump();
  text.append((8 - text.size() % 8) % 8, ' ');
  std::string out = le_u64(text.size()) + text;
  out.reserve(out.size() + offset);
  for (const auto& [name, t] : file.tensors) out += t.bytes;
  return out;
}

std::uint64_t safetensors_header_length(std::string_view first_bytes, std::uint64_t file_size, const std::string& source) {
  if (file_size < 8 || first_bytes.size() < 8)
    fail(source, "too short for a safetensors file (" + std::to_string(file_size) + " bytes; the header length alone takes 8)");
  const std::uint64_t n = load_unsigned(reinterpret_cast<const unsigned char*>(first_bytes.data()), 8, false);
  if (n > kMaxSafetensorsHeaderBytes)
    fail(source, "the header length field says " + std::to_string(n) + " bytes, more than the limit of " +
                     std::to_string(kMaxSafetensorsHeaderBytes) + " (is this a safetensors file?)");
  if (n > file_size - 8)
    fail(source, "the header length field says " + std::to_string(n) + " bytes but only " +
                     std::to_string(file_size - 8) + " follow (truncated file?)");
  return n;
}

SafetensorsHeader decode_safetensors_header(std::string_view header_text, std::uint64_t buffer_size,
                                            const std::string& source) {
  const json header = parse_limited_json(header_text, source + " header");
  if (!header.is_object())
    fail(source, "the header is not a JSON object (the " + std::to_string(header_text.size()) + " bytes after the length)");
  SafetensorsHeader out;
  for (const auto& [key, value] : header.items()) {
    if (key == "__metadata__") {
      if (!value.is_object()) fail(source, "\"__metadata__\" must be an object of strings");
      for (const auto& [mk, mv] : value.items()) {
        if (!mv.is_string()) fail(source, "metadata \"" + mk + "\" must be a string, got " + mv.type_name());
        out.metadata[mk] = mv.get<std::string>();
      }
      continue;
    }
    out.tensors.push_back(parse_entry(key, value, source));
  }
  std::sort(out.tensors.begin(), out.tensors.end(), [](const Entry& a, const Entry& b) {
    return a.begin != b.begin ? a.begin < b.begin : a.end < b.end;
  });
  std::uint64_t expected = 0;
  for (const auto& e : out.tensors) {
    if (e.begin != expected)
      fail(source, "tensor \"" + e.name + "\": data_offsets begin at " + std::to_string(e.begin) + " but the previous tensor ends at " +
                       std::to_string(expected) + (e.begin < expected ? " (overlap)" : " (gap)"));
    if (e.end > buffer_size)
      fail(source, "tensor \"" + e.name + "\": data_offsets end at " + std::to_string(e.end) + " beyond the " +
                       std::to_string(buffer_size) + " data bytes of the file (truncated file?)");
    expected = e.end;
  }
  if (expected != buffer_size)
    fail(source, std::to_string(buffer_size - expected) + " bytes after the last tensor's data are not described by the header");
  return out;
}

SafetensorsFile decode_safetensors(std::string_view bytes, const std::string& source) {
  const std::uint64_t n = safetensors_header_length(bytes, bytes.size(), source);
  const std::string_view buffer = bytes.substr(8 + n);
  SafetensorsHeader header = decode_safetensors_header(bytes.substr(8, n), buffer.size(), source);
  SafetensorsFile out{{}, std::move(header.metadata)};
  for (auto& e : header.tensors) {
    e.tensor.bytes = std::string(buffer.substr(e.begin, e.end - e.begin));
    out.tensors.emplace(e.name, std::move(e.tensor));
  }
  return out;
}

std::vector<Rational> exact_tensor_values(const SafeTensor& t, const std::string& source, const std::string& name) {
  static const std::map<std::string, BitFormat> formats{
      {"F64", kBits64}, {"F32", kBits32}, {"F16", kBits16}, {"BF16", kBitsBfloat16}};
  auto it = formats.find(t.dtype);
  if (it == formats.end())
    throw InputError(source + ": tensor \"" + name + "\" has dtype " + t.dtype +
                     "; model weights must be floats (F64, F32, F16 or BF16). Convert with tensor.double().");
  const BitFormat f = it->second;
  const int size = (1 + f.mant_bits + f.exp_bits) / 8;
  const std::size_t count = t.bytes.size() / static_cast<std::size_t>(size);
  std::vector<Rational> values(count);
  const auto* p = reinterpret_cast<const unsigned char*>(t.bytes.data());
  for (std::size_t k = 0; k < count; ++k) {
    const std::uint64_t bits = load_unsigned(p + k * static_cast<std::size_t>(size), size, false);
    if (const char* bad = nonfinite_name(bits, f))
      throw InputError(source + ": tensor \"" + name + "\" element " + std::to_string(k) + " (flat, C order) is " + bad +
                       ", which is not a rational number; only finite weights can be certified.");
    values[k] = exact_rational_of_bits(bits, f);
  }
  return values;
}

}  // namespace seqi
