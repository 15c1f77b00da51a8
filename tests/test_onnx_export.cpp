// The ONNX export: the protobuf wire encoding (checked against hand-encoded bytes), the
// ModelProto's top-level fields, and verify's --save-model extension rules and --onnx-dtype.
// What the graph computes is checked in ONNX Runtime by tests/onnx/test_onnx_export.py.
#include <boost/test/unit_test.hpp>

#include <map>

#include "cli_support.hpp"
#include "seqi/io/model_onnx.hpp"
#include "seqi/io/onnx_proto.hpp"
#include "seqi/io/protobuf_wire.hpp"

BOOST_AUTO_TEST_SUITE(test_onnx_export)

using namespace seqi_test::cli;

namespace {

// (field number, wire type) -> count of the top-level fields of an encoded message (types 0, 2).
std::map<std::pair<int, int>, int> top_level_fields(const std::string& bytes) {
  std::map<std::pair<int, int>, int> out;
  std::size_t at = 0;
  const auto varint = [&] {
    std::uint64_t v = 0;
    for (int shift = 0; at < bytes.size(); shift += 7) {
      const auto byte = static_cast<unsigned char>(bytes[at++]);
      v |= static_cast<std::uint64_t>(byte & 0x7f) << shift;
      if (!(byte & 0x80)) return v;
    }
    throw std::runtime_error("truncated varint");
  };
  while (at < bytes.size()) {
    const std::uint64_t tag = varint();
    const int wire = static_cast<int>(tag & 7);
    if (wire == 2) at += varint();
    else if (wire == 0) varint();
    else throw std::runtime_error("unexpected wire type " + std::to_string(wire));
    ++out[{static_cast<int>(tag >> 3), wire}];
  }
  BOOST_TEST(at == bytes.size());
  return out;
}

}  // namespace

BOOST_AUTO_TEST_CASE(varints_are_seven_bits_per_byte_low_first) {
  BOOST_TEST(varint_bytes(0) == std::string(1, '\0'));
  BOOST_TEST(varint_bytes(127) == "\x7f");
  BOOST_TEST(varint_bytes(128) == "\x80\x01");
  BOOST_TEST(varint_bytes(300) == "\xac\x02");
  BOOST_TEST(varint_bytes(~std::uint64_t{0}) == "\xff\xff\xff\xff\xff\xff\xff\xff\xff\x01");
  ProtoMessage m;
  m.integer(1, -1).bytes(2, "hi").packed_integers(4, {3, 270});
  BOOST_TEST(m.encoded() == std::string("\x08\xff\xff\xff\xff\xff\xff\xff\xff\xff\x01", 11) + "\x12\x02hi" +
                                "\x22\x03\x03\x8e\x02");
}

BOOST_AUTO_TEST_CASE(model_proto_holds_the_onnx_field_numbers) {
  Transformer<Rational> model{2, {}};
  Block<Rational> b;
  b.sa = {Rational(1, 2), StructuredMatrix<Rational>::scaled_identity(Rational(3)),
          StructuredMatrix<Rational>::scaled_identity(Rational(1))};
  b.ff = {Rational(1), Mat<Rational>::Identity(2, 2), Vec<Rational>::Zero(2), Mat<Rational>::Identity(2, 2)};
  model.blocks.push_back(b);
  ModelExportInfo info{std::nullopt, "abc"};
  info.certified = true;
  info.float64_delta = 1e-9;
  const std::string bytes = model_to_onnx(model, info);
  const auto fields = top_level_fields(bytes);
  // ModelProto: ir_version 1, producer_name 2, producer_version 3, doc_string 6, graph 7,
  // opset_import 8, metadata_props 14.
  const std::map<std::pair<int, int>, int> expected{{{1, 0}, 1}, {{2, 2}, 1}, {{3, 2}, 1}, {{6, 2}, 1},
                                                    {{7, 2}, 1}, {{8, 2}, 1}, {{14, 2}, static_cast<int>(onnx_metadata(model, info).size())}};
  BOOST_TEST((fields == expected));
  BOOST_TEST(bytes.substr(0, 2) == "\x08\x08");  // ir_version = 8
  const auto meta = onnx_metadata(model, info);
  const std::map<std::string, std::string> m(meta.begin(), meta.end());
  BOOST_TEST(m.at("attention") == "hardmax");
  BOOST_TEST(m.count("tau") == 0);
  BOOST_TEST(m.at("float64_delta") == "1.0000000000000001e-09");
  BOOST_TEST(m.at("exact_certificate").rfind("holds", 0) == 0);
  BOOST_TEST(m.at("dataset_sha256") == "abc");
  BOOST_TEST(m.at("model_sha256").size() == 64u);
  BOOST_TEST(m.at("graph_dtype") == "float64");
  info.onnx_float32 = true;
  const auto meta32 = onnx_metadata(model, info);
  const std::map<std::string, std::string> m32(meta32.begin(), meta32.end());
  BOOST_TEST(m32.at("graph_dtype") == "float32");
  BOOST_TEST(m32.at("float64_statement").find("these float32 tensors are outside it") != std::string::npos);
  // float32: shown with its delta, and about the float32 graph only.
  BOOST_TEST(m.at("float32_statement") == "not computed; it speaks of float32 weights rounded once from the exact "
                                           "model: these float64 tensors are outside it");
  info.float32_delta = 0.5;
  const auto shown32 = onnx_metadata(model, info);
  const std::map<std::string, std::string> s32(shown32.begin(), shown32.end());
  BOOST_TEST(s32.at("float32_delta") == "0.5");
  BOOST_TEST(s32.at("float32_statement").rfind("shown (lem:float-run): a float32 run", 0) == 0);
  BOOST_TEST(s32.at("float32_statement").find("outside") == std::string::npos);
}

BOOST_AUTO_TEST_CASE(unknown_model_extension_is_refused_before_any_work) {
  for (const char* name : {"m.onnx2", "m.ONNX", "m", "m.pt"}) {
    BOOST_TEST_CONTEXT(name) {
      const fs::path p = scratch_file(name);
      const Run r = verify({"--save-model", p.string(), dataset("single.json")});
      BOOST_TEST(r.code == 2, describe(r));
      BOOST_TEST(r.err.find("unknown model file extension; the accepted ones are .json") != std::string::npos, r.err);
      BOOST_TEST(r.err.find(".safetensors") != std::string::npos, r.err);
      BOOST_TEST(r.err.find(".onnx") != std::string::npos, r.err);
      BOOST_TEST(!fs::exists(p));
    }
  }
}

BOOST_AUTO_TEST_CASE(onnx_dtype_applies_to_an_onnx_save_only) {
  const Run json_save = verify({"--onnx-dtype", "float32", "--save-model", scratch_file("d.json").string(),
                                dataset("single.json")});
  BOOST_TEST(json_save.code == 2, describe(json_save));
  BOOST_TEST(json_save.err.find("--onnx-dtype applies to --save-model M.onnx") != std::string::npos, json_save.err);
  const Run bad = verify({"--onnx-dtype", "float16", "--save-model", scratch_file("d.onnx").string(),
                          dataset("single.json")});
  BOOST_TEST(bad.code == 2, describe(bad));
  BOOST_TEST(bad.err.find("float16") != std::string::npos, bad.err);
}

BOOST_AUTO_TEST_CASE(onnx_files_are_written_not_read) {
  const fs::path p = scratch_file("w.onnx");
  for (const char* dtype : {"float64", "float32"}) {
    const Run w = verify({"--onnx-dtype", dtype, "--save-model", p.string(), dataset("tiny-d2.json")});
    BOOST_TEST(w.code == 0, describe(w));
    const std::string bytes = read_file(p);
    BOOST_TEST(bytes.substr(0, 2) == "\x08\x08");
    BOOST_TEST(bytes.find(std::string("graph_dtype\x12\x07") + dtype) != std::string::npos);
  }
  const Run r = verify({"--model", p.string(), dataset("tiny-d2.json")});
  BOOST_TEST(r.code == 2, describe(r));
  BOOST_TEST(r.err.find("ONNX models are written (--save-model), not read") != std::string::npos, r.err);
}

BOOST_AUTO_TEST_SUITE_END()
