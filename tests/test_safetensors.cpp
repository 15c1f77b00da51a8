// The safetensors container, exact float decoding, the authors' PyTorch layout (score
// convention checked exactly against <A x_i, x_l>), model export and import, and their errors.
#include <boost/test/unit_test.hpp>

#include <sys/wait.h>
#include <unistd.h>

#include <bit>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iostream>
#include <random>

#include "seqi/construction/construction.hpp"
#include "seqi/io/dataset_json.hpp"
#include "expect_input_error.hpp"
#include "seqi/io/float_bits.hpp"
#include "seqi/io/model_file.hpp"
#include "seqi/io/model_json.hpp"
#include "seqi/io/safetensors.hpp"
#include "seqi/model/structured_from_dense.hpp"
#include "build_paths.hpp"

BOOST_AUTO_TEST_SUITE(test_safetensors)

using namespace seqi;
namespace fs = std::filesystem;

namespace {

std::uint64_t test_seed() {
  static const std::uint64_t seed = [] {
    const char* s = std::getenv("SEQI_SEED");
    const std::uint64_t v = s && *s ? std::strtoull(s, nullptr, 10) : 20261130;
    std::cout << "test_safetensors: seed " << v << " (replay with SEQI_SEED=" << v << ")\n";
    return v;
  }();
  return seed;
}

// Small random rationals p/q, |p| <= 9, 1 <= q <= 7 (zero with probability about 1/4).
struct RandomRationals {
  std::mt19937_64 rng{test_seed()};
  Rational next() {
    if (rng() % 4 == 0) return Rational(0);
    return Rational(static_cast<long>(rng() % 19) - 9, static_cast<long>(rng() % 7) + 1);
  }
  Point point(int d) {
    Point p(d);
    for (int i = 0; i < d; ++i) p[i] = next();
    return p;
  }
  Mat<Rational> matrix(int r, int c) {
    Mat<Rational> m(r, c);
    for (int i = 0; i < r; ++i)
      for (int j = 0; j < c; ++j) m(i, j) = next();
    return m;
  }
};


std::string le64(std::uint64_t v) {
  std::string s(8, '\0');
  for (int k = 0; k < 8; ++k) s[static_cast<std::size_t>(k)] = static_cast<char>(v >> (8 * k));
  return s;
}

// A file with the given header text and data bytes.
std::string file_bytes(const std::string& header, const std::string& data) { return le64(header.size()) + header + data; }

fs::path scratch(const std::string& name) {
  static const fs::path dir = [] {
    fs::path p = fs::temp_directory_path() / ("seqi-safetensors-" + std::to_string(::getpid()));
    fs::create_directories(p);
    return p;
  }();
  static const struct Cleanup {
    ~Cleanup() {
      std::error_code ec;
      fs::remove_all(dir, ec);
    }
  } cleanup;
  return dir / name;
}

void write_bytes(const fs::path& p, const std::string& bytes) {
  std::ofstream out(p, std::ios::binary);
  out << bytes;
  BOOST_REQUIRE(out.good());
}

Transformer<Rational> built_model(const std::string& dataset) {
  return build_interpolating_transformer(read_dataset_file(std::string(SEQI_DATASETS_DIR) + "/" + dataset), 1).model;
}

// A random model: blocks with alpha = 0 and r terms, alpha != 0 with terms, width 1..4.
Transformer<Rational> random_model(RandomRationals& rr, int d, int blocks) {
  Transformer<Rational> m{d, {}};
  for (int k = 0; k < blocks; ++k) {
    Block<Rational> b;
    b.sa.rho = rr.next();
    b.sa.A.alpha = k % 2 ? Rational(k, 3) : Rational(0);
    for (int r = 0; r < 1 + k % 3; ++r) b.sa.A.terms.push_back({rr.point(d), rr.point(d)});
    b.sa.V.alpha = rr.next();
    b.sa.V.terms.push_back({rr.point(d), rr.point(d)});
    const int w = 1 + k % 4;
    b.ff = {rr.next(), rr.matrix(w, d), rr.point(w), rr.matrix(d, w)};
    m.blocks.push_back(std::move(b));
  }
  return m;
}

}  // namespace

BOOST_AUTO_TEST_CASE(container_round_trip_is_byte_exact) {
  SafetensorsFile f;
  f.tensors["b"] = f64_tensor({1.5, -0.0, 1e-300}, {3});
  f.tensors["a"] = f64_tensor({0.1, 2, 3, 4, 5, 6}, {2, 3});
  f.tensors["empty"] = f64_tensor({}, {0, 4});
  f.metadata["k"] = "v \"quoted\"";
  const std::string bytes = encode_safetensors(f);
  const std::uint64_t n = load_unsigned(reinterpret_cast<const unsigned char*>(bytes.data()), 8, false);
  BOOST_TEST(n % 8 == 0u);
  BOOST_TEST(bytes.size() == 8 + n + 9 * 8);
  const auto g = decode_safetensors(bytes, "mem");
  BOOST_TEST(g.metadata == f.metadata);
  BOOST_REQUIRE(g.tensors.size() == 3u);
  for (const auto& [name, t] : f.tensors) {
    BOOST_TEST(g.tensors.at(name).bytes == t.bytes);
    BOOST_TEST(g.tensors.at(name).shape == t.shape);
    BOOST_TEST(g.tensors.at(name).dtype == "F64");
  }
  const auto v = exact_tensor_values(g.tensors.at("a"), "mem", "a");
  BOOST_TEST(v[0] == Rational(Integer(3602879701896397), Integer(1) << 55));  // 0.1 as a double, exactly
  BOOST_TEST(encode_safetensors(g) == bytes);
}

BOOST_AUTO_TEST_CASE(every_float_dtype_decodes_to_its_exact_value) {
  auto tensor = [](const std::string& dtype, const std::string& bytes, std::size_t n) {
    return SafeTensor{dtype, {n}, bytes};
  };
  // F32 0.1f, F16 -2.5 (0xC100), BF16 1 (0x3F80), -5 (0xC0A0), smallest subnormal (0x0001) = 2^-133.
  const float tenth = 0.1f;
  const std::uint32_t b32 = std::bit_cast<std::uint32_t>(tenth);
  std::string f32(4, '\0');
  for (int k = 0; k < 4; ++k) f32[static_cast<std::size_t>(k)] = static_cast<char>(b32 >> (8 * k));
  BOOST_TEST(exact_tensor_values(tensor("F32", f32, 1), "m", "t")[0] == Rational(13421773, 134217728));
  BOOST_TEST(exact_tensor_values(tensor("F16", std::string("\x00\xC1", 2), 1), "m", "t")[0] == Rational(-5, 2));
  const auto bf = exact_tensor_values(tensor("BF16", std::string("\x80\x3F\xA0\xC0\x01\x00", 6), 3), "m", "t");
  BOOST_TEST(bf[0] == Rational(1));
  BOOST_TEST(bf[1] == Rational(-5));
  BOOST_TEST(bf[2] == Rational(Integer(1), Integer(1) << 133));
  EXPECT_INPUT_ERROR(exact_tensor_values(tensor("BF16", std::string("\xC0\x7F", 2), 1), "m", "w"),
                     "tensor \"w\" element 0 (flat, C order) is NaN");
  EXPECT_INPUT_ERROR(exact_tensor_values(tensor("I32", std::string(4, '\0'), 1), "m", "w"), "has dtype I32");
}

BOOST_AUTO_TEST_CASE(nearest_double_rounds_to_nearest) {
  BOOST_TEST(nearest_double(Rational(1, 3)) == 1.0 / 3.0);
  BOOST_TEST(nearest_double(Rational(-2, 7)) == -2.0 / 7.0);
  // 1 + 2^-53 is a tie between 1 and 1 + 2^-52: to even, 1; 1 + 3 * 2^-54 rounds up.
  const Rational ulp(Integer(1), Integer(1) << 52);
  BOOST_TEST(nearest_double(1 + ulp / 2) == 1.0);
  BOOST_TEST(nearest_double(1 + ulp * 3 / 4) == 1.0 + 0x1p-52);
  BOOST_TEST(exact_rational_of_double(nearest_double(Rational(5, 8))) == Rational(5, 8));
}

BOOST_AUTO_TEST_CASE(malformed_containers_are_refused_with_the_reason) {
  const std::string ok = R"({"t":{"dtype":"F64","shape":[2],"data_offsets":[0,16]}})";
  BOOST_TEST(decode_safetensors(file_bytes(ok, std::string(16, '\0')), "f").tensors.size() == 1u);
  EXPECT_INPUT_ERROR(decode_safetensors("abc", "f.safetensors"), "f.safetensors: too short");
  EXPECT_INPUT_ERROR(decode_safetensors(le64(std::uint64_t{1} << 40) + "{}", "f"), "more than the limit");
  EXPECT_INPUT_ERROR(decode_safetensors(le64(100) + "{}", "f"), "only 2 follow");
  EXPECT_INPUT_ERROR(decode_safetensors(file_bytes("{\"t\":", ""), "f"), "malformed JSON");
  EXPECT_INPUT_ERROR(decode_safetensors(file_bytes(ok, std::string(8, '\0')), "f"), "beyond the 8 data bytes");
  EXPECT_INPUT_ERROR(decode_safetensors(file_bytes(ok, std::string(24, '\0')), "f"), "8 bytes after the last tensor");
  EXPECT_INPUT_ERROR(decode_safetensors(file_bytes(R"({"t":{"dtype":"F64","shape":[3],"data_offsets":[0,16]}})", std::string(16, '\0')), "f"),
                     "tensor \"t\": data_offsets [0, 16) hold 16 bytes, but its shape and dtype F64 need 3 x 8");
  EXPECT_INPUT_ERROR(decode_safetensors(file_bytes(R"({"t":{"dtype":"Q7","shape":[1],"data_offsets":[0,1]}})", "x"), "f"),
                     "unknown dtype \"Q7\"");
  EXPECT_INPUT_ERROR(decode_safetensors(file_bytes(R"({"t":{"dtype":"F64","shape":[-1],"data_offsets":[0,8]}})", ""), "f"),
                     "not a non-negative integer");
  EXPECT_INPUT_ERROR(decode_safetensors(file_bytes(R"({"t":{"dtype":"F64","shape":[1]}})", ""), "f"), "data_offsets");
  EXPECT_INPUT_ERROR(
      decode_safetensors(file_bytes(R"({"a":{"dtype":"U8","shape":[2],"data_offsets":[0,2]},"b":{"dtype":"U8","shape":[2],"data_offsets":[1,3]}})", "xyz"), "f"),
      "(overlap)");
  EXPECT_INPUT_ERROR(
      decode_safetensors(file_bytes(R"({"a":{"dtype":"U8","shape":[1],"data_offsets":[1,2]}})", "xy"), "f"), "(gap)");
  EXPECT_INPUT_ERROR(decode_safetensors(file_bytes(R"({"__metadata__":{"k":1}})", ""), "f"), "metadata \"k\" must be a string");
}

BOOST_AUTO_TEST_CASE(rank_factorization_is_exact_and_minimal) {
  RandomRationals rr;
  for (int r = 0; r <= 3; ++r) {
    const int d = 5;
    Mat<Rational> M = Mat<Rational>::Zero(d, d);
    for (int k = 0; k < r; ++k) {  // rank r almost surely; the factorisation must find rank(M) terms
      Point p = rr.point(d), q = rr.point(d);
      p[k] = 1 + rr.next() * rr.next();  // nonzero
      M += p * q.transpose();
    }
    const auto terms = rank_factorization(M);
    Mat<Rational> sum = Mat<Rational>::Zero(d, d);
    for (const auto& t : terms) sum += t.p * t.q.transpose();
    BOOST_TEST((sum == M));
    BOOST_TEST(terms.size() <= static_cast<std::size_t>(r));
  }
  // 3 I + a rank-one term is recognised as such.
  Point p(3), q(3);
  p << 1, 0, 0;
  q << 0, 2, 0;
  const Mat<Rational> M = Mat<Rational>::Identity(3, 3) * Rational(3) + p * q.transpose();
  const auto s = structured_from_dense(M);
  BOOST_TEST(s.alpha == Rational(3));
  BOOST_TEST(s.terms.size() == 1u);
  BOOST_TEST((dense_of(s, 3) == M));
}

// The score convention, exactly: (Wq x_i).(Wk x_l) = <A x_i, x_l>, Wv x = V x, FF unchanged,
// for our constructions and for random models (alpha != 0, several terms, widths 1..4).
BOOST_AUTO_TEST_CASE(authors_layout_reproduces_scores_values_and_ff_exactly) {
  RandomRationals rr;
  std::vector<Transformer<Rational>> models{built_model("tiny-d2.json"), built_model("mixed-d3.json"),
                                            random_model(rr, 3, 6), random_model(rr, 4, 5)};
  for (const auto& model : models) {
    const int d = model.dimension;
    const auto layout = authors_layout(model);
    BOOST_REQUIRE(layout.size() == model.blocks.size());
    for (std::size_t k = 0; k < layout.size(); ++k) {
      const auto& a = layout[k];
      const auto& b = model.blocks[k];
      BOOST_TEST(a.Wq.rows() == layout.front().Wq.rows());  // one common h
      BOOST_TEST(a.U.rows() == 4);
      for (int trial = 0; trial < 3; ++trial) {
        const Point xi = rr.point(d), xl = rr.point(d);
        const Rational ours = dot(b.sa.A.apply(xi), xl);
        const Rational theirs = dot(Point(a.Wq * xi), Point(a.Wk * xl));
        BOOST_TEST(ours == theirs, "block " << k << ": " << to_string(ours) << " vs " << to_string(theirs));
        BOOST_TEST((Point(a.Wv * xi) == b.sa.V.apply(xi)));
        Point ff = xi * a.eta;
        for (Eigen::Index u = 0; u < a.U.rows(); ++u) {
          const Rational pre = a.U.row(u).dot(xi.transpose()) + a.b[u];
          if (pre > 0) ff += a.W.col(u) * pre;
        }
        BOOST_TEST((ff == b.ff.apply(xi)));
      }
    }
    // Back from the tensors: the same maps, never more rank-one terms than heads.
    const auto back = model_from_authors_layout(layout, d);
    for (std::size_t k = 0; k < layout.size(); ++k) {
      BOOST_TEST((dense_of(back.blocks[k].sa.A, d) == dense_of(model.blocks[k].sa.A, d)));
      BOOST_TEST((dense_of(back.blocks[k].sa.V, d) == dense_of(model.blocks[k].sa.V, d)));
      BOOST_TEST(back.blocks[k].sa.A.terms.size() <= static_cast<std::size_t>(layout[k].Wq.rows()));
      BOOST_TEST(back.blocks[k].ff.width() <= model.blocks[k].ff.width());
      const Point x = rr.point(d);
      BOOST_TEST((back.blocks[k].ff.apply(x) == model.blocks[k].ff.apply(x)));
    }
  }
}

BOOST_AUTO_TEST_CASE(export_then_import_keeps_the_exact_model_and_its_floats) {
  const auto model = built_model("mixed-d3.json");
  const fs::path path = scratch("mixed.safetensors");
  save_model(model, path.string(), {Rational(1, 1000), "abc123"});
  const auto st = read_model_safetensors(path.string());
  BOOST_TEST(st.metadata.at("attention") == "softmax");
  BOOST_TEST(st.metadata.at("tau") == "1/1000");
  BOOST_TEST(st.metadata.at("dataset_sha256") == "abc123");
  BOOST_TEST(st.metadata.at("seqi_version") == SEQI_VERSION);
  BOOST_TEST(st.metadata.at("format_version") == "1");
  // The exact model in the metadata is the model, byte for byte as JSON.
  const auto exact = exact_model_from_metadata(st, path.string());
  BOOST_TEST(model_to_json(exact).dump() == model_to_json(model).dump());
  const auto loaded = load_model(path.string(), true);
  BOOST_TEST(loaded.tau.has_value());
  BOOST_TEST(*loaded.tau == Rational(1, 1000));
  // The tensors: each stored double is the nearest double to the exact entry; the import is
  // exactly the model those doubles denote.
  auto layout = authors_layout(model);
  for (auto& a : layout) {
    auto round = [](Rational& x) { x = exact_rational_of_double(nearest_double(x)); };
    round(a.rho), round(a.eta);
    for (auto* m : {&a.Wq, &a.Wk, &a.Wv, &a.U, &a.W})
      for (Eigen::Index i = 0; i < m->size(); ++i) round(m->data()[i]);
    for (Eigen::Index i = 0; i < a.b.size(); ++i) round(a.b[i]);
  }
  const auto rounded = model_from_authors_layout(layout, model.dimension);
  BOOST_TEST(model_to_json(st.model).dump() == model_to_json(rounded).dump());
  // Hardmax export: no tau.
  save_model(model, path.string(), {std::nullopt, "x"});
  BOOST_TEST(read_model_safetensors(path.string()).metadata.at("attention") == "hardmax");
  BOOST_TEST(!load_model(path.string(), false).tau.has_value());
}

BOOST_AUTO_TEST_CASE(layout_errors_name_the_file_and_tensor) {
  const auto model = built_model("tiny-d2.json");
  const std::string good = model_to_safetensors(model, {std::nullopt, "x"});
  auto with = [&](const std::function<void(SafetensorsFile&)>& edit) {
    auto f = decode_safetensors(good, "mem");
    edit(f);
    const fs::path p = scratch("edited.safetensors");
    write_bytes(p, encode_safetensors(f));
    return p.string();
  };
  EXPECT_INPUT_ERROR(read_model_safetensors(with([](auto& f) { f.tensors.erase("blocks.1.eta"); })),
                     "tensor \"blocks.1.eta\" is missing");
  EXPECT_INPUT_ERROR(read_model_safetensors(with([](auto& f) { f.tensors["blocks.0.attn.bias"] = f64_tensor({1}, {1}); })),
                     "unexpected tensor \"blocks.0.attn.bias\"");
  EXPECT_INPUT_ERROR(read_model_safetensors(with([](auto& f) { f.tensors["head.weight"] = f64_tensor({1}, {1}); })),
                     "unexpected tensor \"head.weight\"");
  EXPECT_INPUT_ERROR(read_model_safetensors(with([](auto& f) { f.tensors["blocks.01.rho"] = f64_tensor({1}, {1}); })),
                     "unexpected tensor \"blocks.01.rho\"");
  EXPECT_INPUT_ERROR(read_model_safetensors(with([](auto& f) { f.tensors["blocks.0.ff.0.bias"] = f64_tensor({1, 2, 3}, {3}); })),
                     "tensor \"blocks.0.ff.0.bias\" has shape [3], expected [4]");
  EXPECT_INPUT_ERROR(read_model_safetensors(with([](auto& f) { f.tensors["blocks.0.attn.to_v.weight"] = f64_tensor({1}, {1, 1}); })),
                     "expected [d, d] with d >= 2");
  EXPECT_INPUT_ERROR(read_model_safetensors(with([](auto& f) { f.tensors.clear(); })), "holds no tensors");
  EXPECT_INPUT_ERROR(read_model_safetensors(with([](auto& f) { f.tensors["blocks.0.rho"].dtype = "I64"; })),
                     "tensor \"blocks.0.rho\" has dtype I64");
  EXPECT_INPUT_ERROR(exact_model_from_metadata(read_model_safetensors(with([](auto& f) { f.metadata.clear(); })), "p"),
                     "no exact rational model in the metadata");
  EXPECT_INPUT_ERROR(load_model(scratch("nowhere.safetensors").string(), false), "does not exist");
  write_bytes(scratch("m.json"), model_to_json(model).dump());
  EXPECT_INPUT_ERROR(load_model(scratch("m.json").string(), true), "--model-metadata applies to .safetensors");
}

BOOST_AUTO_TEST_CASE(cli_exports_and_certifies_the_metadata_model) {
  const fs::path model = scratch("cli.safetensors");
  const std::string verify = SEQI_VERIFY_EXE, data = std::string(SEQI_DATASETS_DIR) + "/shared-tokens.json";
  auto run = [](const std::string& cmd) {
    const int status = std::system((cmd + " >/dev/null 2>&1").c_str());
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  };
  BOOST_TEST(run(verify + " --softmax --save-model " + model.string() + " " + data) == 0);
  BOOST_TEST(fs::exists(model));
  // The exact model certifies back, hardmax and softmax (tau from the file's metadata).
  BOOST_TEST(run(verify + " --exact --model " + model.string() + " --model-metadata " + data) == 0);
  BOOST_TEST(run(verify + " --softmax --model " + model.string() + " --model-metadata " + data) == 0);
  BOOST_TEST(run(verify + " --exact --model-metadata " + data) == 2);  // needs --model
}

BOOST_AUTO_TEST_SUITE_END()
