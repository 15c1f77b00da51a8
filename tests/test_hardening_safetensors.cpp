// Hostile .safetensors models: the header under the JSON limits of every reader (nesting, no
// key twice), metadata checked against the tensors, and sizes checked before any tensor byte
// is read. Dataset nesting and duplicate keys: tests/bad-input.
#include <boost/test/unit_test.hpp>

#include <fcntl.h>
#include <unistd.h>

#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "expect_input_error.hpp"
#include "hardening_support.hpp"
#include "seqi/io/exact_json.hpp"
#include "seqi/io/model_safetensors.hpp"
#include "seqi/io/safetensors.hpp"

BOOST_AUTO_TEST_SUITE(test_hardening_safetensors)

using namespace seqi;
namespace fs = std::filesystem;
using namespace seqi_test::hardening;

namespace {

std::string le64(std::uint64_t v) {
  std::string s(8, '\0');
  for (int k = 0; k < 8; ++k) s[static_cast<std::size_t>(k)] = static_cast<char>((v >> (8 * k)) & 0xff);
  return s;
}

std::string file_bytes(const std::string& header, const std::string& data) { return le64(header.size()) + header + data; }

// The file verify --save-model writes for tiny-d2 (built once).
const std::string& saved_safetensors() {
  static const std::string bytes = [] {
    const fs::path m = scratch_file("tiny.safetensors");
    const Run r = verify({"--exact", "--save-model", m.string(), dataset("tiny-d2.json")});
    BOOST_REQUIRE_MESSAGE(r.code == 0, describe(r));
    return read_file(m);
  }();
  return bytes;
}

// The saved file with its metadata changed by `edit`.
std::string with_metadata(const std::function<void(std::map<std::string, std::string>&)>& edit) {
  SafetensorsFile f = decode_safetensors(saved_safetensors(), "saved");
  edit(f.metadata);
  return encode_safetensors(f);
}

std::string read_error(const std::string& bytes) {
  return error_of([&] { model_from_safetensors(bytes, "m.safetensors"); });
}

}  // namespace

// ---- nesting and duplicate keys: the limits of every JSON reader --------------------------

BOOST_AUTO_TEST_CASE(a_deeply_nested_header_is_refused_with_a_message) {
  const std::string deep = "{\"t\":" + std::string(100000, '[') + std::string(100000, ']') + "}";
  EXPECT_INPUT_ERROR(decode_safetensors(file_bytes(deep, ""), "f.safetensors"), "nested deeper than 32 levels");
  const std::string deep_metadata = "{\"__metadata__\":" + std::string(100000, '[') + std::string(100000, ']') + "}";
  EXPECT_INPUT_ERROR(decode_safetensors(file_bytes(deep_metadata, ""), "f.safetensors"), "nested deeper than 32 levels");
  // At the limit it parses (and is refused for what it is, not for its depth).
  const std::string at_limit = "{\"t\":" + std::string(31, '[') + std::string(31, ']') + "}";
  const std::string message = error_of([&] { decode_safetensors(file_bytes(at_limit, ""), "f"); });
  BOOST_TEST(message.find("nested") == std::string::npos, message);
  BOOST_TEST(message.find("expected an object with dtype") != std::string::npos, message);
  // verify: exit 2 with the message, no crash.
  const fs::path m = scratch_file("deep.safetensors");
  write_file(m, file_bytes(deep, ""));
  expect(verify({"--exact", "--model", m.string(), dataset("tiny-d2.json")}), 2, "nested deeper than 32 levels");
}

BOOST_AUTO_TEST_CASE(a_key_twice_in_the_header_is_refused_naming_it) {
  const std::string t = R"({"dtype":"F64","shape":[1],"data_offsets":[0,8]})";
  EXPECT_INPUT_ERROR(decode_safetensors(file_bytes("{\"a\":" + t + ",\"a\":" + t + "}", std::string(8, '\0')), "f"),
                     "the key \"a\" appears twice");
  EXPECT_INPUT_ERROR(
      decode_safetensors(file_bytes(R"({"__metadata__":{"x":"1"},"__metadata__":{"x":"2"}})", ""), "f"),
      "the key \"__metadata__\" appears twice");
  EXPECT_INPUT_ERROR(decode_safetensors(file_bytes(R"({"__metadata__":{"x":"1","x":"2"}})", ""), "f"),
                     "the key \"x\" appears twice");
  EXPECT_INPUT_ERROR(decode_safetensors(file_bytes(R"({"a":{"dtype":"F64","dtype":"F32","shape":[1],"data_offsets":[0,8]}})",
                                                   std::string(8, '\0')),
                                        "f"),
                     "the key \"dtype\" appears twice");
  // The saved model with its first tensor's entry repeated: exit 2 through verify.
  const std::string& saved = saved_safetensors();
  std::uint64_t n = 0;
  for (int k = 7; k >= 0; --k) n = (n << 8) | static_cast<unsigned char>(saved[static_cast<std::size_t>(k)]);
  std::string header = saved.substr(8, n);
  const std::string data = saved.substr(8 + n);
  header.insert(header.rfind('}'), R"(,"blocks.0.rho":{"dtype":"F64","shape":[1],"data_offsets":[0,8]})");
  const fs::path m = scratch_file("twice.safetensors");
  write_file(m, file_bytes(header, data));
  expect(verify({"--exact", "--model", m.string(), dataset("tiny-d2.json")}), 2, "appears twice in one object");
}

BOOST_AUTO_TEST_CASE(every_json_reader_shares_the_limits) {
  const std::string deep = std::string(33, '[') + std::string(33, ']');
  EXPECT_INPUT_ERROR(parse_limited_json(deep, "x"), "nested deeper than 32 levels");
  EXPECT_INPUT_ERROR(parse_exact_json(deep, "x"), "nested deeper than 32 levels");
  BOOST_TEST(parse_limited_json(std::string(32, '[') + std::string(32, ']'), "x").is_array());
  EXPECT_INPUT_ERROR(parse_limited_json(R"({"a": 1, "b": {"c": 1, "c": 2}})", "x"), "the key \"c\" appears twice");
  BOOST_TEST(parse_limited_json(R"({"a": [{"c": 1}, {"c": 2}]})", "x")["a"][1]["c"] == 2);  // one key per object
}

// ---- metadata against the tensors ---------------------------------------------------------

BOOST_AUTO_TEST_CASE(metadata_that_contradicts_the_tensors_is_refused_naming_the_field) {
  BOOST_TEST(read_error(saved_safetensors()) == "<no error>");
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"d", "3"},          {"depth", "1"},          {"h", "0"},           {"width", "0"},
      {"attention", "linear"}, {"format", "onnx"},  {"format_version", "2"}, {"layout", "another layout"},
      {"score_convention", "score = <x_i, A x_l>"}};
  for (const auto& [field, value] : cases) {
    BOOST_TEST_CONTEXT(field << " = " << value) {
      const std::string message = read_error(with_metadata([&, f = field, v = value](auto& m) { m[f] = v; }));
      BOOST_TEST(message.find("metadata \"" + field + "\"") != std::string::npos, message);
      BOOST_TEST(message.rfind("m.safetensors: ", 0) == 0, message);
    }
  }
  EXPECT_INPUT_ERROR(model_from_safetensors(with_metadata([](auto& m) { m.erase("format_version"); }), "m"),
                     "\"format_version\" is missing");
  EXPECT_INPUT_ERROR(model_from_safetensors(with_metadata([](auto& m) { m["tau"] = "1/2"; }), "m"),
                     "contradicts metadata \"tau\"");  // the saved file says hardmax
  // A file of plain tensors (no metadata, or safetensors.torch's "pt" tag) is read as before.
  BOOST_TEST(read_error(with_metadata([](auto& m) { m.clear(); })) == "<no error>");
  BOOST_TEST(read_error(with_metadata([](auto& m) { m = {{"format", "pt"}}; })) == "<no error>");
  // Through verify: exit 2 and the field named.
  const fs::path m = scratch_file("wrong-d.safetensors");
  write_file(m, with_metadata([](auto& md) { md["d"] = "3"; }));
  expect(verify({"--exact", "--model", m.string(), dataset("tiny-d2.json")}), 2, "metadata \"d\" = \"3\" contradicts the tensors");
}

// ---- sizes before reading -----------------------------------------------------------------

BOOST_AUTO_TEST_CASE(a_header_that_does_not_cover_the_file_is_refused_before_the_data_is_read) {
  // 2 GiB (sparse) after a header that describes 8 bytes: refused from the header and the
  // file's size. Under a 512 MiB address-space limit reading it whole would run out of memory.
  const fs::path m = scratch_file("sparse.safetensors");
  write_file(m, file_bytes(R"({"blocks.0.rho":{"dtype":"F64","shape":[1],"data_offsets":[0,8]}})", std::string(8, '\0')));
  BOOST_REQUIRE(::truncate(m.c_str(), off_t{2} << 30) == 0);
  const Run r = verify({"--exact", "--model", m.string(), dataset("tiny-d2.json")}, memory_limited(rlim_t{512} << 20));
  expect(r, 2, "bytes after the last tensor's data are not described by the header");
  // A header that claims more data than the file holds: refused before reading it.
  const fs::path t = scratch_file("short.safetensors");
  write_file(t, file_bytes(R"({"blocks.0.rho":{"dtype":"F64","shape":[1],"data_offsets":[0,8]}})", std::string(4, '\0')));
  EXPECT_INPUT_ERROR(read_safetensors_file(t.string(), std::uint64_t{1} << 32), "beyond the 4 data bytes");
  // The file reader and the in-memory decoder agree on a good file.
  const fs::path good = scratch_file("good.safetensors");
  write_file(good, saved_safetensors());
  const SafetensorsFile a = read_safetensors_file(good.string(), std::uint64_t{1} << 32);
  const SafetensorsFile b = decode_safetensors(saved_safetensors(), "x");
  BOOST_TEST(a.tensors.size() == b.tensors.size());
  BOOST_TEST(a.metadata == b.metadata);
  BOOST_TEST(encode_safetensors(a) == saved_safetensors());
}

BOOST_AUTO_TEST_SUITE_END()
