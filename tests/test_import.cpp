#include <boost/test/unit_test.hpp>

#include <unistd.h>
#include <zlib.h>

#include <bit>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <set>
#include <string>
#include <vector>

#include "seqi/certification/run_report.hpp"
#include "seqi/io/dataset_json.hpp"
#include "expect_input_error.hpp"
#include "seqi/io/dataset_writer.hpp"
#include "seqi/io/idx.hpp"
#include "seqi/cli/run.hpp"
#include "seqi/io/import_datasets.hpp"
#include "seqi/io/npy.hpp"
#include "import_support.hpp"

BOOST_AUTO_TEST_SUITE(test_import)

namespace fs = std::filesystem;
using namespace seqi;
using namespace seqi_test::import_io;

namespace {

Rational pow2(int e) {
  Rational r = 1;
  for (int k = 0; k < std::abs(e); ++k) r *= 2;
  return e >= 0 ? r : Rational(1) / r;
}

}  // namespace

// ---------------------------------------------------------------- IDX

BOOST_AUTO_TEST_CASE(idx_reads_images_and_labels) {
  Bytes pixels;
  for (int k = 0; k < 24; ++k) pixels += static_cast<char>(k * 10);
  const auto images = read_idx(tmp().write("img.idx", idx_bytes({2, 3, 4}, pixels)));
  BOOST_TEST(images.dims == (std::vector<std::uint32_t>{2, 3, 4}), boost::test_tools::per_element());
  BOOST_REQUIRE(images.data.size() == 24u);
  BOOST_TEST(images.data[0] == 0);
  BOOST_TEST(images.data[23] == 230);
  const auto labels = read_idx(tmp().write("lab.idx", idx_bytes({3}, Bytes{7, 0, 9})));
  BOOST_TEST(labels.dims == (std::vector<std::uint32_t>{3}), boost::test_tools::per_element());
  BOOST_TEST(labels.data == (std::vector<std::uint8_t>{7, 0, 9}), boost::test_tools::per_element());
}

BOOST_AUTO_TEST_CASE(idx_reads_gzip_compressed_files) {
  Bytes pixels;
  for (int k = 0; k < 2 * 28 * 28; ++k) pixels += static_cast<char>(k % 251);
  const Bytes file = idx_bytes({2, 28, 28}, pixels);
  const auto a = read_idx(tmp().write_gz("img.idx.gz", file));
  BOOST_TEST(a.dims == (std::vector<std::uint32_t>{2, 28, 28}), boost::test_tools::per_element());
  BOOST_REQUIRE(a.data.size() == pixels.size());
  BOOST_TEST(std::memcmp(a.data.data(), pixels.data(), pixels.size()) == 0);
  // A gzip stream cut short is an error, not a silently short array.
  Bytes gz;
  {
    std::ifstream in(tmp().file("img.idx.gz"), std::ios::binary);
    gz.assign(std::istreambuf_iterator<char>(in), {});
  }
  BOOST_REQUIRE(gz.size() > 40u);
  const auto cut = tmp().write("cut.idx.gz", gz.substr(0, gz.size() / 2));
  const std::string message = error_of([&] { read_idx(cut); });
  BOOST_TEST_INFO("message: " << message);
  BOOST_TEST((message.find("truncated") != std::string::npos || message.find("corrupt") != std::string::npos));
  BOOST_TEST(message.rfind(cut + ": ", 0) == 0);
}

BOOST_AUTO_TEST_CASE(idx_rejects_bad_files_with_messages) {
  EXPECT_INPUT_ERROR(read_idx(tmp().write("magic.idx", Bytes{1, 0, 8, 1} + be32(1) + "x")), "wrong magic number 0x01000801");
  EXPECT_INPUT_ERROR(read_idx(tmp().write("float.idx", idx_bytes({1}, "abcd", 0x0D))), "unsupported IDX element type 0x0d (32-bit float)");
  EXPECT_INPUT_ERROR(read_idx(tmp().write("short.idx", idx_bytes({2, 3, 4}, Bytes(23, 'a')))),
                     "truncated: the header announces 2 x 3 x 4 = 24 bytes of data but only 23 follow");
  EXPECT_INPUT_ERROR(read_idx(tmp().write("header.idx", Bytes{0, 0, 8, 3} + be32(2) + Bytes(2, '\0'))),
                     "truncated: the header ends inside dimension 2 of 3");
  EXPECT_INPUT_ERROR(read_idx(tmp().write("tiny.idx", Bytes{0, 0})), "fewer than the 4-byte IDX magic");
  EXPECT_INPUT_ERROR(read_idx(tmp().write("extra.idx", idx_bytes({2}, "abc"))), "has bytes after the 2 bytes");
  EXPECT_INPUT_ERROR(read_idx(tmp().write("huge.idx", idx_bytes({0xFFFFFFFFu, 0xFFFFFFFFu, 0xFFFFFFFFu}, ""))),
                     "the dimensions describe more than");
  EXPECT_INPUT_ERROR(read_idx(tmp().write("rank0.idx", Bytes{0, 0, 8, 0})), "rank");
  EXPECT_INPUT_ERROR(read_idx(tmp().file("missing.idx")), "does not exist");
}

// ---------------------------------------------------------------- exact floats

BOOST_AUTO_TEST_CASE(floats_convert_to_the_exact_rational_they_denote) {
  BOOST_TEST(exact_rational_of_float(0.1f) == Rational(13421773, 134217728));
  BOOST_TEST(exact_rational_of_double(0.1) ==
             Rational(Integer(3602879701896397)) / Rational(Integer(36028797018963968)));
  BOOST_TEST(exact_rational_of_double(std::numeric_limits<double>::denorm_min()) == pow2(-1074));
  BOOST_TEST(exact_rational_of_float(std::numeric_limits<float>::denorm_min()) == pow2(-149));
  BOOST_TEST(exact_rational_of_double(std::numeric_limits<double>::min()) == pow2(-1022));
  BOOST_TEST(exact_rational_of_double(-0.0) == Rational(0));
  BOOST_TEST(exact_rational_of_float(-0.0f) == Rational(0));
  BOOST_TEST(exact_rational_of_double(-1.5) == Rational(-3, 2));
  BOOST_TEST(exact_rational_of_double(std::ldexp(1.0, 1000)) == pow2(1000));
  BOOST_TEST(exact_rational_of_double(std::numeric_limits<double>::max()) == (2 - pow2(-52)) * pow2(1023));
  BOOST_TEST(exact_rational_of_half(0x3C00) == Rational(1));       // 1.0
  BOOST_TEST(exact_rational_of_half(0x0001) == pow2(-24));         // smallest subnormal
  BOOST_TEST(exact_rational_of_half(0xC100) == Rational(-5, 2));   // -2.5
  EXPECT_INPUT_ERROR(exact_rational_of_double(std::numeric_limits<double>::quiet_NaN()), "NaN");
  EXPECT_INPUT_ERROR(exact_rational_of_double(std::numeric_limits<double>::infinity()), "+infinity");
  EXPECT_INPUT_ERROR(exact_rational_of_float(-std::numeric_limits<float>::infinity()), "-infinity");
  EXPECT_INPUT_ERROR(exact_rational_of_half(0x7E00), "NaN");
}

// ---------------------------------------------------------------- npy

BOOST_AUTO_TEST_CASE(npy_reads_floats_in_both_byte_orders) {
  const std::vector<float> f{0.1f, -0.0f, std::numeric_limits<float>::denorm_min(), 1.5f, -3.0f, 1e30f};
  const std::vector<Rational> fr{Rational(13421773, 134217728), 0, pow2(-149), Rational(3, 2), -3,
                                 exact_rational_of_float(1e30f)};
  for (bool big : {false, true}) {
    BOOST_TEST_CONTEXT("f4 big-endian " << big) {
      const auto a = read_npy(tmp().write("f4.npy", npy_bytes(big ? ">f4" : "<f4", "(2, 3)", raw(f, big))));
      BOOST_TEST(a.shape == (std::vector<std::size_t>{2, 3}), boost::test_tools::per_element());
      BOOST_REQUIRE(a.values.size() == fr.size());
      for (std::size_t k = 0; k < fr.size(); ++k) BOOST_TEST(a.values[k] == fr[k], "value " << k);
    }
  }
  const std::vector<double> d{0.1, -2.25, std::numeric_limits<double>::denorm_min()};
  const std::vector<Rational> dr{exact_rational_of_double(0.1), Rational(-9, 4), pow2(-1074)};
  for (bool big : {false, true}) {
    BOOST_TEST_CONTEXT("f8 big-endian " << big) {
      const auto a = read_npy(tmp().write("f8.npy", npy_bytes(big ? ">f8" : "<f8", "(3,)", raw(d, big))));
      BOOST_TEST(a.shape == (std::vector<std::size_t>{3}), boost::test_tools::per_element());
      BOOST_REQUIRE(a.values.size() == dr.size());
      for (std::size_t k = 0; k < dr.size(); ++k) BOOST_TEST(a.values[k] == dr[k], "value " << k);
    }
  }
  const auto h = read_npy(tmp().write("f2.npy", npy_bytes("<f2", "(2,)", raw(std::vector<std::uint16_t>{0x3C00, 0xC100}))));
  BOOST_TEST(h.values.size() == 2u);
  BOOST_TEST(h.values[1] == Rational(-5, 2));
}

BOOST_AUTO_TEST_CASE(npy_reads_integer_types) {
  auto one = [](const std::string& name, const Bytes& file) { return read_npy(tmp().write(name, file)).values; };
  auto i1 = one("i1.npy", npy_bytes("|i1", "(3,)", raw(std::vector<std::int8_t>{-128, 0, 127})));
  BOOST_TEST(i1 == (std::vector<Rational>{-128, 0, 127}), boost::test_tools::per_element());
  auto i2 = one("i2.npy", npy_bytes(">i2", "(2,)", raw(std::vector<std::int16_t>{-2, 300}, true)));
  BOOST_TEST(i2 == (std::vector<Rational>{-2, 300}), boost::test_tools::per_element());
  auto i4 = one("i4.npy", npy_bytes("<i4", "(2,)", raw(std::vector<std::int32_t>{-70000, 5})));
  BOOST_TEST(i4 == (std::vector<Rational>{-70000, 5}), boost::test_tools::per_element());
  auto i8 = one("i8.npy", npy_bytes("<i8", "(2,)",
                                    raw(std::vector<std::int64_t>{std::numeric_limits<std::int64_t>::min(), 1})));
  BOOST_REQUIRE(i8.size() == 2u);
  BOOST_TEST(i8[0] == Rational(Integer(std::numeric_limits<std::int64_t>::min())));
  auto u1 = one("u1.npy", npy_bytes("|u1", "(2,)", Bytes{'\xFF', 0}));
  BOOST_TEST(u1 == (std::vector<Rational>{255, 0}), boost::test_tools::per_element());
  auto u2 = one("u2.npy", npy_bytes("<u2", "(1,)", raw(std::vector<std::uint16_t>{65535})));
  BOOST_TEST(u2 == (std::vector<Rational>{65535}), boost::test_tools::per_element());
  auto u8 = one("u8.npy", npy_bytes(">u8", "(1,)", raw(std::vector<std::uint64_t>{~std::uint64_t{0}}, true)));
  BOOST_REQUIRE(u8.size() == 1u);
  BOOST_TEST(u8[0] == Rational(Integer(~std::uint64_t{0})));
  auto b1 = one("b1.npy", npy_bytes("|b1", "(2,)", Bytes{1, 0}));
  BOOST_TEST(b1 == (std::vector<Rational>{1, 0}), boost::test_tools::per_element());
  // 0-d array: one value, empty shape.
  const auto scalar = read_npy(tmp().write("0d.npy", npy_bytes("<i4", "()", raw(std::vector<std::int32_t>{42}))));
  BOOST_TEST(scalar.shape.empty());
  BOOST_TEST(scalar.values == (std::vector<Rational>{42}), boost::test_tools::per_element());
}

BOOST_AUTO_TEST_CASE(npy_header_versions_and_padding) {
  const Bytes data = raw(std::vector<std::int16_t>{1, 2, 3, 4});
  // v1 with numpy's 64-byte alignment, older 16-byte alignment, v2 and v3.
  for (auto [major, align] : std::vector<std::pair<int, std::size_t>>{{1, 64}, {1, 16}, {2, 64}, {3, 64}}) {
    BOOST_TEST_CONTEXT("version " << major << " align " << align) {
      const Bytes file = npy_bytes("<i2", "(2, 2)", data, major, align);
      BOOST_TEST((file.size() - data.size()) % align == 0u);
      const auto a = read_npy(tmp().write("v.npy", file));
      BOOST_TEST(a.shape == (std::vector<std::size_t>{2, 2}), boost::test_tools::per_element());
      BOOST_TEST(a.values == (std::vector<Rational>{1, 2, 3, 4}), boost::test_tools::per_element());
    }
  }
  // Header written by Python 2 numpy: long literals; double-quoted strings are accepted too.
  Bytes py2 = npy_bytes("<i2", "(2L, 2L)", data);
  for (char& c : py2) if (c == '\'') c = '"';
  const auto a = read_npy(tmp().write("py2.npy", py2));
  BOOST_TEST(a.shape == (std::vector<std::size_t>{2, 2}), boost::test_tools::per_element());
  BOOST_TEST(a.values.size() == 4u);
}

BOOST_AUTO_TEST_CASE(npy_rejects_bad_files_with_messages) {
  const Bytes f4 = raw(std::vector<float>{1, 2, 3, 4});
  EXPECT_INPUT_ERROR(read_npy(tmp().write("magic.npy", "PK\x03\x04 not npy")), "wrong magic");
  EXPECT_INPUT_ERROR(read_npy(tmp().write("short.npy", npy_bytes("<f4", "(2, 2)", f4.substr(0, 15)))),
                     "truncated: the header announces shape (2, 2) of '<f4' = 4 values");
  EXPECT_INPUT_ERROR(read_npy(tmp().write("cuthead.npy", npy_bytes("<f4", "(2, 2)", f4).substr(0, 30))),
                     "truncated: the header announces");
  EXPECT_INPUT_ERROR(read_npy(tmp().write("extra.npy", npy_bytes("<f4", "(3,)", f4))), "bytes after the data");
  EXPECT_INPUT_ERROR(read_npy(tmp().write("c8.npy", npy_bytes("<c8", "(2,)", f4))),
                     "unsupported dtype '<c8' (complex numbers)");
  EXPECT_INPUT_ERROR(read_npy(tmp().write("obj.npy", npy_bytes("|O", "(1,)", Bytes(8, 0)))), "unsupported dtype '|O'");
  EXPECT_INPUT_ERROR(read_npy(tmp().write("f16.npy", npy_bytes("<f16", "(1,)", Bytes(16, 0)))), "128-bit floats");
  EXPECT_INPUT_ERROR(read_npy(tmp().write("fortran.npy", npy_bytes("<f4", "(2, 2)", f4, 1, 64, "True"))),
                     "fortran_order is True");
  EXPECT_INPUT_ERROR(read_npy(tmp().write("ver.npy", Bytes("\x93NUMPY\x04\x00\x10\x00", 10) + Bytes(16, ' '))),
                     "unsupported .npy format version 4.0");
  EXPECT_INPUT_ERROR(read_npy(tmp().write("dict.npy", npy_bytes("<f4", "(2, 2", f4))), "malformed .npy header");
  {
    Bytes s("\x93NUMPY\x01\x00", 8);
    const std::string dict = "{'descr': [('a', '<f4')], 'fortran_order': False, 'shape': (1,), }\n";
    s += static_cast<char>(dict.size()), s += '\0';
    EXPECT_INPUT_ERROR(read_npy(tmp().write("struct.npy", s + dict + Bytes(4, 0))), "structured array");
  }
  const std::vector<float> with_nan{1, 2, 3, std::numeric_limits<float>::quiet_NaN()};
  EXPECT_INPUT_ERROR(read_npy(tmp().write("nan.npy", npy_bytes("<f4", "(2, 2)", raw(with_nan)))),
                     "value 3 (index [1, 1]) is NaN");
  const std::vector<double> with_inf{1, -std::numeric_limits<double>::infinity()};
  EXPECT_INPUT_ERROR(read_npy(tmp().write("inf.npy", npy_bytes(">f8", "(2,)", raw(with_inf, true)))),
                     "value 1 (index [1]) is -infinity");
  const std::string message = error_of([&] { read_npy(tmp().file("nowhere.npy")); });
  BOOST_TEST(message.find("nowhere.npy: the .npy file does not exist") != std::string::npos);
}

BOOST_AUTO_TEST_SUITE_END()
