// The ONNX export: the protobuf wire encoding (checked against hand-encoded bytes), the
// ModelProto's top-level fields, and verify's --save-model extension rules and --onnx-dtype.
// What the graph computes is checked in ONNX Runtime by tests/onnx/test_onnx_export.py.
// --save-property: the VNN-LIB text (exact decimals, bounds strictly outside each interval),
// the benchmark directory and its refusals; tests/onnx/test_vnnlib.py runs the benchmarks.
#include <boost/test/unit_test.hpp>

#include <cmath>
#include <limits>
#include <map>

#include "cli_support.hpp"
#include "seqi/io/model_onnx.hpp"
#include "seqi/io/onnx_proto.hpp"
#include "seqi/io/property_set.hpp"
#include "seqi/io/protobuf_wire.hpp"
#include "seqi/io/vnnlib.hpp"
#include "seqi/io/float_bits.hpp"
#include "seqi/core/input_error.hpp"

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

BOOST_AUTO_TEST_CASE(vnnlib_numbers_are_exact_decimals_of_doubles) {
  BOOST_TEST(exact_decimal(0.1) == "0.1000000000000000055511151231257827021181583404541015625");
  BOOST_TEST(exact_decimal(-0.125) == "-0.125");
  BOOST_TEST(exact_decimal(3) == "3");
  BOOST_TEST(exact_decimal(-0.0) == "0");
  BOOST_TEST(exact_decimal(1e300).find('.') == std::string::npos);
  for (const double x : {0.1, 1.0 / 3, -2.5e-7, 1e300, std::numeric_limits<double>::denorm_min(), -1e-310}) {
    const std::string text = exact_decimal(x);
    BOOST_TEST(text.find_first_of("eE") == std::string::npos, text);
    BOOST_TEST(*parse_rational(text, nullptr, 2000) == exact_rational_of_double(x), text);
  }
  BOOST_CHECK_THROW(exact_decimal(std::nan("")), InputError);
  BOOST_CHECK_THROW(exact_decimal(std::numeric_limits<double>::infinity()), InputError);
}

BOOST_AUTO_TEST_CASE(vnnlib_bounds_are_the_nearest_doubles_strictly_outside) {
  BOOST_TEST(double_above(Rational(1)) == std::nextafter(1.0, 2.0));
  BOOST_TEST(double_below(Rational(1)) == std::nextafter(1.0, 0.0));
  BOOST_TEST(double_above(Rational(0)) == std::numeric_limits<double>::denorm_min());
  BOOST_TEST(double_below(Rational(0)) == -std::numeric_limits<double>::denorm_min());
  for (const Rational& x : {Rational(1, 3), Rational(-1, 3), Rational(1, 10), Rational(7, 1) / 1000000}) {
    const double hi = double_above(x), lo = double_below(x);
    BOOST_TEST((exact_rational_of_double(hi) > x && exact_rational_of_double(std::nextafter(hi, -1e308)) <= x));
    BOOST_TEST((exact_rational_of_double(lo) < x && exact_rational_of_double(std::nextafter(lo, 1e308)) >= x));
  }
  BOOST_CHECK_THROW(double_above(exact_rational_of_double(std::numeric_limits<double>::max())), InputError);
  BOOST_CHECK_THROW(double_below(exact_rational_of_double(std::numeric_limits<double>::lowest())), InputError);
}

BOOST_AUTO_TEST_CASE(vnnlib_text_fixes_the_input_and_states_the_unsafe_region) {
  Point x(2), y(2);
  x << Rational(1, 3), Rational(2);
  y << Rational(1), Rational(-1, 2);
  const std::string text = vnnlib_text({{x}, {y}, Rational(1, 4)}, {"a comment"});
  BOOST_TEST(text.rfind("; a comment\n", 0) == 0);
  for (const char* line :
       {"(declare-const X_1 Real)\n", "(declare-const Y_1 Real)\n",
        "(assert (<= X_0 0.333333333333333314829616256247390992939472198486328125))\n",
        "(assert (>= X_0 0.333333333333333314829616256247390992939472198486328125))\n", "(assert (<= X_1 2))\n",
        "(assert (>= X_1 2))\n", "(assert (or\n", "  (and (>= Y_0 1.2500000000000002220446049250313080847263336181640625))\n",
        "  (and (<= Y_0 0.74999999999999988897769753748434595763683319091796875))\n",
        "  (and (>= Y_1 -0.2499999999999999722444243843710864894092082977294921875))\n",
        "  (and (<= Y_1 -0.75000000000000011102230246251565404236316680908203125))\n"})
    BOOST_TEST(text.find(line) != std::string::npos, line);
  BOOST_TEST(text.find("X_2") == std::string::npos);
  BOOST_CHECK_THROW(vnnlib_text({{x, x}, {y}, Rational(0)}, {}), InputError);  // n in, 1 out
  BOOST_CHECK_THROW(vnnlib_text({{x}, {y}, Rational(-1)}, {}), InputError);
  BOOST_TEST(counterexample_text({x}, {y}) ==
             "sat\n((X_0 0.333333333333333314829616256247390992939472198486328125)\n (X_1 2)\n (Y_0 1)\n (Y_1 -0.5)\n)\n");
}

namespace {

// Two sequences in d = 1 and a model of no blocks (the identity): the benchmark's files do not
// depend on what the model computes.
Dataset two_sequences() {
  Dataset data;
  data.dimension = 1;
  const auto pt = [](int v) { return Point::Constant(1, Rational(v)); };
  data.pairs.push_back({TokenSequence({pt(1), pt(2)}), TokenSequence({pt(1), pt(2)})});
  data.pairs.push_back({TokenSequence({pt(3), pt(3), pt(4)}), TokenSequence({pt(4), pt(3)})});
  return data;
}

}  // namespace

BOOST_AUTO_TEST_CASE(property_set_layout_and_what_is_written_without_a_statement) {
  const Dataset data = two_sequences();
  const Transformer<Rational> model{1, {}};
  ModelExportInfo info{std::nullopt, "abc"};
  info.certified = true;
  info.float64_not_shown = "block 1, sequence 1, token 1: a kink";
  const fs::path none = scratch_file("bench-none");
  const std::string why = write_property_set({none.string(), {}, 60, "d.json"}, data, model, info, {{0, 1}, {1, 1, 0}});
  BOOST_TEST(why == "the float64 statement is not shown (block 1, sequence 1, token 1: a kink)");
  BOOST_TEST(read_file(none / "instances.csv").empty());
  BOOST_TEST(!fs::exists(none / "vnnlib"));
  BOOST_TEST(json::parse(read_file(none / "manifest.json")).at("no_properties") == why);

  info.float64_delta = 0.5;
  const fs::path bench = scratch_file("bench-one");
  BOOST_TEST(write_property_set({bench.string(), {1}, 300, "d.json"}, data, model, info, {{0, 1}, {1, 1, 0}}).empty());
  BOOST_TEST(read_file(bench / "instances.csv") ==
             "onnx/model_n3.onnx,vnnlib/seq2_true.vnnlib,300\nonnx/model_n3.onnx,vnnlib/seq2_false.vnnlib,300\n");
  BOOST_TEST(!fs::exists(bench / "onnx/model_n2.onnx"));
  BOOST_TEST(read_file(bench / "onnx/model_n3.onnx").substr(0, 2) == "\x08\x08");
  const std::string t = read_file(bench / "vnnlib/seq2_true.vnnlib");
  // tokens 3, 3, 4 are targets 2, 2, 1 (the values 3, 3, 4) within 1/2
  BOOST_TEST(t.find("targets of the output tokens (from 1): 2 2 1\n") != std::string::npos, t);
  BOOST_TEST(t.find("(and (>= Y_2 4.50000000000000088817841970012523233890533447265625))") != std::string::npos, t);
  BOOST_TEST(t.find("(and (<= Y_0 2.499999999999999555910790149937383830547332763671875))") != std::string::npos, t);
  // false: target 2 (value 3, token 1's) moved to 3 + 2 delta + 3/1024 = 4.0029296875 for tokens 1 and 2
  const std::string f = read_file(bench / "vnnlib/seq2_false.vnnlib");
  BOOST_TEST(f.find("moved from 3 to 4099/1024") != std::string::npos, f);
  BOOST_TEST(f.find("(and (<= Y_1 3.502929687499999555910790149937383830547332763671875))") != std::string::npos, f);
  BOOST_TEST(read_file(bench / "vnnlib/seq2_false.counterexample") ==
             "sat\n((X_0 3)\n (X_1 3)\n (X_2 4)\n (Y_0 3)\n (Y_1 3)\n (Y_2 4)\n)\n");
  const json m = json::parse(read_file(bench / "manifest.json"));
  BOOST_TEST(m.at("instances").size() == 2u);
  BOOST_TEST(m.at("instances")[0].at("expected") == "unsat");
  BOOST_TEST(m.at("instances")[1].at("expected") == "sat");
  BOOST_TEST(m.at("float64_delta_exact") == "0.5");
}

BOOST_AUTO_TEST_CASE(save_property_refusals_name_the_problem_and_write_nothing) {
  const fs::path file = scratch_file("prop-file"), full = scratch_file("prop-full"), fresh = scratch_file("prop-new");
  write_file(file, "x");
  fs::create_directory(full);
  write_file(full / "a", "x");
  const std::string data = dataset("tiny-d2.json");
  const std::vector<std::pair<std::vector<std::string>, std::string>> cases{
      {{"--save-property", file.string(), data}, "exists and is not a directory; give a new or empty directory"},
      {{"--save-property", full.string(), data}, "is not empty; give a new or empty directory"},
      {{"--save-property", (fresh / "sub").string(), data}, "does not exist; create it or choose another DIR"},
      {{"--save-property", "/proc/self/bench", data}, "lies under /proc"},
      {{"--model", data, "--save-property", fresh.string(), data}, "with --model nothing is built"},
      {{"--property-sequences", "1", data}, "--property-sequences applies to --save-property DIR"},
      {{"--property-timeout", "9", data}, "--property-timeout applies to --save-property DIR"},
      {{"--save-property", fresh.string(), "--property-sequences", "3", data},
       "sequence 3 is beyond the 2 sequences of"},
      {{"--save-property", fresh.string(), "--property-sequences", "2,2", data}, "sequence 2 is named twice"},
      {{"--save-property", fresh.string(), "--property-sequences", "1,,2", data}, "\"\" is not a sequence number"},
      {{"--save-property", fresh.string(), "--property-sequences", "0", data}, "\"0\" is not a sequence number"},
      {{"--save-property", fresh.string(), "--save-model", (fresh / "m.onnx").string(), data}, "m.onnx"},
  };
  for (const auto& [args, message] : cases) {
    BOOST_TEST_CONTEXT(args.front() << " " << args[1]) {
      const Run r = verify(args);
      BOOST_TEST(r.code == 2, describe(r));
      BOOST_TEST(r.err.find(message) != std::string::npos, r.err);
      BOOST_TEST(!fs::exists(fresh));
    }
  }
  const Run ok = verify({"--softmax", "--save-property", fresh.string(), "--property-sequences", "2", data});
  BOOST_TEST(ok.code == 0, describe(ok));
  BOOST_TEST(ok.err.empty(), ok.err);
  BOOST_TEST(read_file(fresh / "instances.csv") ==
             "onnx/model_n2.onnx,vnnlib/seq2_true.vnnlib,60\nonnx/model_n2.onnx,vnnlib/seq2_false.vnnlib,60\n");
  BOOST_TEST(json::parse(read_file(fresh / "manifest.json")).at("attention") == "softmax");
}

BOOST_AUTO_TEST_SUITE_END()
