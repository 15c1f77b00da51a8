#include "seqi/io/model_safetensors.hpp"
#include "seqi/io/statement_metadata.hpp"

#include <algorithm>
#include <array>
#include <charconv>

#include "seqi/core/input_error.hpp"
#include "seqi/io/exact_json.hpp"
#include "seqi/io/float_bits.hpp"
#include "seqi/io/model_json.hpp"
#include "seqi/io/model_metadata.hpp"
#include "seqi/io/read_file.hpp"
#include "seqi/io/safetensors.hpp"
#include "seqi/model/structured_from_dense.hpp"

namespace seqi {
namespace {

constexpr std::array<const char*, 8> kParams{"rho", "eta", "attn.to_q.weight", "attn.to_k.weight",
                                             "attn.to_v.weight", "ff.0.weight", "ff.0.bias", "ff.2.weight"};

// Heads of one block's A: one per rank-one term, or d when alpha != 0 or the terms exceed d.
bool heads_are_terms(const StructuredMatrix<Rational>& A, int d) {
  return A.alpha == 0 && A.terms.size() <= static_cast<std::size_t>(d);
}

std::string block_name(std::size_t i, const char* param) { return "blocks." + std::to_string(i) + "." + param; }

// Row-major doubles nearest to the entries of m.
std::vector<double> nearest_doubles(const Mat<Rational>& m) {
  std::vector<double> out;
  out.reserve(static_cast<std::size_t>(m.size()));
  for (Eigen::Index i = 0; i < m.rows(); ++i)
    for (Eigen::Index j = 0; j < m.cols(); ++j) out.push_back(nearest_double(m(i, j)));
  return out;
}

SafeTensor f64_matrix(const Mat<Rational>& m) {
  return f64_tensor(nearest_doubles(m), {static_cast<std::size_t>(m.rows()), static_cast<std::size_t>(m.cols())});
}

// Drops FF units that add exactly nothing: W column zero, or U row zero with b <= 0.
FeedForward<Rational> without_noop_units(const Rational& eta, const Mat<Rational>& U, const Vec<Rational>& b,
                                         const Mat<Rational>& W) {
  std::vector<Eigen::Index> keep;
  for (Eigen::Index k = 0; k < U.rows(); ++k)
    if (!W.col(k).isZero() && !(U.row(k).isZero() && b[k] <= 0)) keep.push_back(k);
  const auto w = static_cast<Eigen::Index>(keep.size());
  Mat<Rational> kept_U(w, U.cols()), kept_W(W.rows(), w);
  Vec<Rational> kept_b(w);
  for (Eigen::Index k = 0; k < w; ++k) {
    kept_U.row(k) = U.row(keep[static_cast<std::size_t>(k)]);
    kept_b[k] = b[keep[static_cast<std::size_t>(k)]];
    kept_W.col(k) = W.col(keep[static_cast<std::size_t>(k)]);
  }
  return {eta, std::move(kept_U), std::move(kept_b), std::move(kept_W)};
}

// ------------------------------------------------------------------ reading

class LayoutReader {
 public:
  LayoutReader(const SafetensorsFile& file, std::string path) : file_(file), path_(std::move(path)) {}

  [[noreturn]] void fail(const std::string& what) const {
    throw InputError(path_ + ": " + what + ". Expected the layout of exactInterpTF's TF module "
                     "(blocks.{i}.rho, .eta, .attn.to_q.weight, .attn.to_k.weight, .attn.to_v.weight, "
                     ".ff.0.weight, .ff.0.bias, .ff.2.weight), e.g. from seqi_torch.save_transformer.");
  }

  // Number of blocks L; every tensor name must be blocks.{i}.{param} with i < L, all present.
  std::size_t depth() const {
    std::size_t L = 0;
    for (const auto& [name, t] : file_.tensors) {
      const auto [index, param] = split(name);
      (void)param;
      L = std::max(L, index + 1);
    }
    if (L == 0) fail("the file holds no tensors");
    for (std::size_t i = 0; i < L; ++i)
      for (const char* p : kParams)
        if (!file_.tensors.count(block_name(i, p)))
          fail("tensor \"" + block_name(i, p) + "\" is missing (the file has blocks up to " + std::to_string(L - 1) + ")");
    return L;
  }

  // The tensor `name` with the given shape, as exact rationals in C order.
  std::vector<Rational> values(const std::string& name, const std::vector<std::size_t>& shape) const {
    const SafeTensor& t = file_.tensors.at(name);
    const bool scalar_ok = shape == std::vector<std::size_t>{1} && t.shape.empty();
    if (t.shape != shape && !scalar_ok)
      fail("tensor \"" + name + "\" has shape " + shape_text(t.shape) + ", expected " + shape_text(shape));
    return exact_tensor_values(t, path_, name);
  }
  Mat<Rational> matrix(const std::string& name, std::size_t rows, std::size_t cols) const {
    const auto v = values(name, {rows, cols});
    Mat<Rational> m(static_cast<Eigen::Index>(rows), static_cast<Eigen::Index>(cols));
    for (std::size_t i = 0; i < rows; ++i)
      for (std::size_t j = 0; j < cols; ++j) m(static_cast<Eigen::Index>(i), static_cast<Eigen::Index>(j)) = v[i * cols + j];
    return m;
  }
  const std::vector<std::size_t>& shape(const std::string& name) const { return file_.tensors.at(name).shape; }

  static std::string shape_text(const std::vector<std::size_t>& s) {
    std::string out = "[";
    for (std::size_t k = 0; k < s.size(); ++k) out += (k ? ", " : "") + std::to_string(s[k]);
    return out + "]";
  }

 private:
  // "blocks.{i}.{param}" -> (i, param); fails on any other name.
  std::pair<std::size_t, std::string> split(const std::string& name) const {
    const std::string prefix = "blocks.";
    const auto dot = name.find('.', prefix.size());
    std::size_t index = 0;
    const char* first = name.data() + prefix.size();
    const char* last = name.data() + (dot == std::string::npos ? name.size() : dot);
    const auto [ptr, ec] = std::from_chars(first, last, index);
    const std::string param = dot == std::string::npos ? "" : name.substr(dot + 1);
    const bool digits_ok = ec == std::errc{} && ptr == last && first != last && (*first != '0' || last - first == 1);
    if (name.rfind(prefix, 0) != 0 || !digits_ok ||
        std::find_if(kParams.begin(), kParams.end(), [&](const char* p) { return param == p; }) == kParams.end())
      fail("unexpected tensor \"" + name + "\"");
    if (index > 10000000) fail("tensor \"" + name + "\": block index too large");
    return {index, param};
  }

  const SafetensorsFile& file_;
  std::string path_;
};

}  // namespace

// Wk^T Wq = A exactly (lem:torch-layout): heads from the terms, or Wq = I, Wk = A^T.
std::vector<AuthorsBlock> authors_layout(const Transformer<Rational>& model) {
  const int d = model.dimension;
  Eigen::Index h = 1, w = 4;
  for (const auto& b : model.blocks) {
    h = std::max<Eigen::Index>(h, heads_are_terms(b.sa.A, d) ? static_cast<Eigen::Index>(b.sa.A.terms.size()) : d);
    w = std::max<Eigen::Index>(w, static_cast<Eigen::Index>(b.ff.width()));
  }
  std::vector<AuthorsBlock> out;
  for (const auto& b : model.blocks) {
    AuthorsBlock a{b.sa.rho, b.ff.eta, Mat<Rational>::Zero(h, d), Mat<Rational>::Zero(h, d), dense_of(b.sa.V, d),
                   Mat<Rational>::Zero(w, d), Vec<Rational>::Zero(w), Mat<Rational>::Zero(d, w)};
    if (heads_are_terms(b.sa.A, d)) {
      for (std::size_t r = 0; r < b.sa.A.terms.size(); ++r) {
        a.Wq.row(static_cast<Eigen::Index>(r)) = b.sa.A.terms[r].q.transpose();
        a.Wk.row(static_cast<Eigen::Index>(r)) = b.sa.A.terms[r].p.transpose();
      }
    } else {
      a.Wq.topRows(d) = Mat<Rational>::Identity(d, d);
      a.Wk.topRows(d) = dense_of(b.sa.A, d).transpose();
    }
    const auto bw = static_cast<Eigen::Index>(b.ff.width());
    a.U.topRows(bw) = b.ff.U.dense();
    a.b.head(bw) = b.ff.b;
    a.W.leftCols(bw) = b.ff.W.dense();
    out.push_back(std::move(a));
  }
  return out;
}

// A = Wk^T Wq (lem:torch-layout), in the structured form of lem:rank-factorization.
Transformer<Rational> model_from_authors_layout(const std::vector<AuthorsBlock>& blocks, int d) {
  Transformer<Rational> model{d, {}};
  for (const auto& a : blocks) {
    Block<Rational> b;
    b.sa = {a.rho, structured_from_dense(a.Wk.transpose() * a.Wq), structured_from_dense(a.Wv)};
    b.ff = without_noop_units(a.eta, a.U, a.b, a.W);
    model.blocks.push_back(std::move(b));
  }
  return model;
}

std::string model_to_safetensors(const Transformer<Rational>& model, const ModelExportInfo& info) {
  const auto layout = authors_layout(model);
  SafetensorsFile file;
  for (std::size_t i = 0; i < layout.size(); ++i) {
    const AuthorsBlock& a = layout[i];
    file.tensors[block_name(i, "rho")] = f64_tensor({nearest_double(a.rho)}, {1});
    file.tensors[block_name(i, "eta")] = f64_tensor({nearest_double(a.eta)}, {1});
    file.tensors[block_name(i, "attn.to_q.weight")] = f64_matrix(a.Wq);
    file.tensors[block_name(i, "attn.to_k.weight")] = f64_matrix(a.Wk);
    file.tensors[block_name(i, "attn.to_v.weight")] = f64_matrix(a.Wv);
    file.tensors[block_name(i, "ff.0.weight")] = f64_matrix(a.U);
    file.tensors[block_name(i, "ff.0.bias")] = f64_tensor(nearest_doubles(a.b), {static_cast<std::size_t>(a.b.size())});
    file.tensors[block_name(i, "ff.2.weight")] = f64_matrix(a.W);
  }
  auto& m = file.metadata;
  m["format"] = kSafetensorsModelFormat;
  m["format_version"] = "1";
  m["layout"] = kSafetensorsModelLayout;
  m["score_convention"] = kSafetensorsScoreConvention;
  m["attention"] = info.tau ? "softmax" : "hardmax";
  if (info.tau) m["tau"] = to_string(*info.tau);
  m["dataset_sha256"] = info.dataset_sha256;
  m["seqi_version"] = SEQI_VERSION;
  m["d"] = std::to_string(model.dimension);
  m["depth"] = std::to_string(layout.size());
  m["h"] = std::to_string(layout.empty() ? 1 : layout.front().Wq.rows());
  m["width"] = std::to_string(layout.empty() ? 4 : layout.front().U.rows());
  for (const auto& [k, v] : statement_metadata(info, "float64")) m[k] = v;
  m["seqi_model_json"] = model_to_json(model).dump();
  return encode_safetensors(file);
}

SafetensorsModel read_model_safetensors(const std::string& path) {
  return model_from_safetensors_file(read_safetensors_file(path, std::uint64_t{1} << 32), path);
}

SafetensorsModel model_from_safetensors(std::string_view bytes, const std::string& path) {
  return model_from_safetensors_file(decode_safetensors(bytes, path), path);
}

SafetensorsModel model_from_safetensors_file(const SafetensorsFile& file, const std::string& path) {
  const LayoutReader r(file, path);
  const std::size_t L = r.depth();
  const auto& v0 = r.shape(block_name(0, "attn.to_v.weight"));
  if (v0.size() != 2 || v0[0] != v0[1] || v0[0] < 2 || v0[0] > 1000000)
    r.fail("tensor \"" + block_name(0, "attn.to_v.weight") + "\" has shape " + LayoutReader::shape_text(v0) +
           ", expected [d, d] with d >= 2");
  const std::size_t d = v0[0];
  const auto& q0 = r.shape(block_name(0, "attn.to_q.weight"));
  const auto& u0 = r.shape(block_name(0, "ff.0.weight"));
  if (q0.size() != 2) r.fail("tensor \"" + block_name(0, "attn.to_q.weight") + "\" must have shape [h, d]");
  if (u0.size() != 2) r.fail("tensor \"" + block_name(0, "ff.0.weight") + "\" must have shape [w, d]");
  const std::size_t h = q0[0], w = u0[0];
  check_model_metadata(file.metadata, {d, L, h, w}, path);
  std::vector<AuthorsBlock> blocks;
  for (std::size_t i = 0; i < L; ++i) {
    AuthorsBlock a;
    a.rho = r.values(block_name(i, "rho"), {1})[0];
    a.eta = r.values(block_name(i, "eta"), {1})[0];
    a.Wq = r.matrix(block_name(i, "attn.to_q.weight"), h, d);
    a.Wk = r.matrix(block_name(i, "attn.to_k.weight"), h, d);
    a.Wv = r.matrix(block_name(i, "attn.to_v.weight"), d, d);
    a.U = r.matrix(block_name(i, "ff.0.weight"), w, d);
    const auto b = r.values(block_name(i, "ff.0.bias"), {w});
    a.b = Vec<Rational>(static_cast<Eigen::Index>(w));
    for (std::size_t k = 0; k < w; ++k) a.b[static_cast<Eigen::Index>(k)] = b[k];
    a.W = r.matrix(block_name(i, "ff.2.weight"), d, w);
    blocks.push_back(std::move(a));
  }
  return {model_from_authors_layout(blocks, static_cast<int>(d)), file.metadata};
}

Transformer<Rational> exact_model_from_metadata(const SafetensorsModel& m, const std::string& path) {
  auto it = m.metadata.find("seqi_model_json");
  if (it == m.metadata.end())
    throw InputError(path + ": no exact rational model in the metadata (key \"seqi_model_json\"); only files "
                     "written by verify --save-model carry one. Drop --model-metadata to read the float tensors.");
  Transformer<Rational> exact = model_from_json(parse_exact_json(it->second, path + " metadata seqi_model_json"),
                                                path + " metadata seqi_model_json");
  if (exact.dimension != m.model.dimension || exact.blocks.size() != m.model.blocks.size())
    throw InputError(path + ": the exact model in the metadata has d = " + std::to_string(exact.dimension) + " and " +
                     std::to_string(exact.blocks.size()) + " blocks, the tensors d = " + std::to_string(m.model.dimension) +
                     " and " + std::to_string(m.model.blocks.size()) + " blocks; the file is inconsistent.");
  return exact;
}

}  // namespace seqi
