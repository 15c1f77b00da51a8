#include "seqi/io/model_onnx.hpp"

#include <bit>
#include <cstdint>
#include <cstdio>
#include <optional>
#include <variant>

#include "seqi/io/float_bits.hpp"
#include "seqi/io/model_json.hpp"
#include "seqi/io/onnx_proto.hpp"
#include "seqi/io/sha256.hpp"
#include "seqi/io/statement_metadata.hpp"
#include "seqi/numbers/scalar.hpp"

namespace seqi {
namespace {

// Appends value's bytes, least significant first (ONNX raw_data is little-endian).
template <class U>
void append_little_endian(std::string& out, U value) {
  for (std::size_t k = 0; k < sizeof(U); ++k) out.push_back(static_cast<char>((value >> (8 * k)) & 0xff));
}

// Nodes and initializers of one graph; every node has one output, named after the node.
class GraphBuilder {
 public:
  explicit GraphBuilder(OnnxElement element) : element_(element) {}

  std::string node(const std::string& op, std::vector<std::string> inputs, const std::string& name,
                   std::vector<OnnxAttribute> attributes = {}) {
    graph_.nodes.push_back({op, name, std::move(inputs), {name}, std::move(attributes)});
    return name;
  }

  // Row-major values rounded once to nearest in the graph's element type (as lem:float-run
  // assumes of each format).
  std::string constant(const std::string& name, const std::vector<Rational>& values, std::vector<std::int64_t> dims) {
    OnnxTensor t{name, element_, std::move(dims), {}};
    for (const Rational& v : values) {
      if (element_ == OnnxElement::float32)
        append_little_endian(t.raw_data, std::bit_cast<std::uint32_t>(scalar_from_rational<float>(v)));
      else
        append_little_endian(t.raw_data, std::bit_cast<std::uint64_t>(nearest_double(v)));
    }
    graph_.initializers.push_back(std::move(t));
    return name;
  }
  std::string scalar(const std::string& name, const Rational& v) { return constant(name, {v}, {}); }
  std::string matrix(const std::string& name, const Mat<Rational>& m) {
    std::vector<Rational> values;
    values.reserve(static_cast<std::size_t>(m.size()));
    for (Eigen::Index i = 0; i < m.rows(); ++i)
      for (Eigen::Index j = 0; j < m.cols(); ++j) values.push_back(m(i, j));
    return constant(name, values, {m.rows(), m.cols()});
  }

  // The int64 tensor [1] that ReduceSum (opset 13) takes as its axes: the key axis 1.
  std::string key_axis() {
    if (!has_key_axis_) {
      OnnxTensor t{"key_axis", OnnxElement::int64, {1}, {}};
      append_little_endian(t.raw_data, std::uint64_t{1});
      graph_.initializers.push_back(std::move(t));
      has_key_axis_ = true;
    }
    return "key_axis";
  }

  OnnxElement element() const { return element_; }
  OnnxGraph take() { return std::move(graph_); }

 private:
  OnnxElement element_;
  OnnxGraph graph_;
  bool has_key_axis_ = false;
};

OnnxAttribute int_attribute(const std::string& name, std::int64_t v) { return {name, {v}, false}; }
OnnxAttribute ints_attribute(const std::string& name, std::vector<std::int64_t> v) { return {name, std::move(v), true}; }

// Rows y^T = alpha x^T + sum_t (q_t . x) p_t^T of the rows x^T of `x`, for M != 0: def:float-run's
// structured product, c = X Q^T then C P.
std::string structured_rows(GraphBuilder& g, const std::string& x, const StructuredMatrix<Rational>& M, int d,
                            const std::string& prefix) {
  std::string low_rank;
  if (!M.terms.empty()) {
    const auto k = static_cast<Eigen::Index>(M.terms.size());
    Mat<Rational> Qt(d, k), P(k, d);
    for (Eigen::Index t = 0; t < k; ++t) {
      Qt.col(t) = M.terms[static_cast<std::size_t>(t)].q;
      P.row(t) = M.terms[static_cast<std::size_t>(t)].p.transpose();
    }
    const auto c = g.node("MatMul", {x, g.matrix(prefix + ".Q_t", Qt)}, prefix + ".q_dot_x");
    low_rank = g.node("MatMul", {c, g.matrix(prefix + ".P", P)}, prefix + ".low_rank");
  }
  if (M.alpha == 0) return low_rank;
  const auto scaled = g.node("Mul", {x, g.scalar(prefix + ".alpha", M.alpha)}, prefix + ".alpha_x");
  return low_rank.empty() ? scaled : g.node("Add", {scaled, low_rank}, prefix + ".product");
}

// x times the scalar s (no node when s = 1: the product is exact).
std::string scaled(GraphBuilder& g, const std::string& x, const Rational& s, const std::string& name) {
  return s == 1 ? x : g.node("Mul", {x, g.scalar(name + "_factor", s)}, name);
}

// The attended averages m_i for A != 0: hardmax with ties averaged, or softmax at tau.
std::string attended(GraphBuilder& g, const std::string& x, const SelfAttention<Rational>& sa,
                     const std::optional<Rational>& tau, int d, const std::string& p) {
  const auto queries = structured_rows(g, x, sa.A, d, p + ".A");
  const auto keys = g.node("Transpose", {x}, p + ".keys", {ints_attribute("perm", {1, 0})});
  const auto scores = g.node("MatMul", {queries, keys}, p + ".scores");  // s_il = <A x_i, x_l>
  const auto keep = int_attribute("keepdims", 1);
  if (!tau) {
    const auto top = g.node("ReduceMax", {scores}, p + ".top", {ints_attribute("axes", {1}), keep});
    const auto tied = g.node("Equal", {scores, top}, p + ".argmax");
    const auto weight = g.node("Cast", {tied}, p + ".argmax_weight",
                               {int_attribute("to", static_cast<std::int64_t>(g.element()))});
    const auto count = g.node("ReduceSum", {weight, g.key_axis()}, p + ".argmax_count", {keep});
    const auto sum = g.node("MatMul", {weight, x}, p + ".argmax_sum");
    return g.node("Div", {sum, count}, p + ".average");
  }
  const auto scaled_scores = g.node("Div", {scores, g.scalar(p + ".tau", *tau)}, p + ".scores_over_tau");
  const auto top = g.node("ReduceMax", {scaled_scores}, p + ".top", {ints_attribute("axes", {1}), keep});
  const auto shifted = g.node("Sub", {scaled_scores, top}, p + ".shifted");
  const auto e = g.node("Exp", {shifted}, p + ".exp");
  const auto z = g.node("ReduceSum", {e, g.key_axis()}, p + ".partition", {keep});
  const auto sum = g.node("MatMul", {e, x}, p + ".weighted_sum");
  return g.node("Div", {sum, z}, p + ".average");
}

// x_i -> rho x_i + V m_i; A = 0 makes every score 0, so m_i is the mean of the tokens.
std::string attention(GraphBuilder& g, const std::string& x, const SelfAttention<Rational>& sa,
                      const std::optional<Rational>& tau, int d, const std::string& p) {
  if (sa.is_identity()) return x;
  auto rho_x = scaled(g, x, sa.rho, p + ".rho_x");
  if (sa.V.is_zero()) return rho_x;
  const auto m = sa.is_mean_shift()
                     ? g.node("ReduceMean", {x}, p + ".mean", {ints_attribute("axes", {0}), int_attribute("keepdims", 1)})
                     : attended(g, x, sa, tau, d, p);
  return g.node("Add", {rho_x, structured_rows(g, m, sa.V, d, p + ".V")}, p + ".out");
}

// x -> eta x + W relu(U x + b).
std::string feed_forward(GraphBuilder& g, const std::string& x, const FeedForward<Rational>& ff, const std::string& p) {
  auto eta_x = scaled(g, x, ff.eta, p + ".eta_x");
  if (ff.width() == 0) return eta_x;
  const auto ux = g.node("MatMul", {x, g.matrix(p + ".U_t", ff.U.dense().transpose())}, p + ".Ux");
  const auto pre = g.node("Add", {ux, g.constant(p + ".b", std::vector<Rational>(ff.b.begin(), ff.b.end()),
                                                 {static_cast<std::int64_t>(ff.b.size())})},
                          p + ".pre_activation");
  const auto active = g.node("Relu", {pre}, p + ".relu");
  const auto out = g.node("MatMul", {active, g.matrix(p + ".W_t", ff.W.dense().transpose())}, p + ".W_relu");
  return g.node("Add", {eta_x, out}, p + ".out");
}

}  // namespace

bool is_onnx_path(const std::string& path) { return path.ends_with(".onnx"); }

std::vector<std::pair<std::string, std::string>> onnx_metadata(const Transformer<Rational>& model,
                                                               const ModelExportInfo& info) {
  std::vector<std::pair<std::string, std::string>> m{
      {"seqi_format", "seqi-transformer-onnx"},
      {"seqi_format_version", "1"},
      {"attention", info.tau ? "softmax" : "hardmax"}};
  if (info.tau) m.emplace_back("tau", to_string(*info.tau));
  else
    m.emplace_back("tie_rule", "ties averaged: C_i = {l : s_il == max_l s_il}, the computed scores compared for "
                               "exact equality, m_i = sum_{l in C_i} x_l / |C_i|");
  m.emplace_back("graph_dtype", info.onnx_float32 ? "float32" : "float64");
  m.emplace_back("model_sha256", sha256_hex(model_json_text(model)));
  m.emplace_back("dataset_sha256", info.dataset_sha256);
  for (auto& kv : statement_metadata(info, info.onnx_float32 ? "float32" : "float64")) m.push_back(std::move(kv));
  m.emplace_back("seqi_version", SEQI_VERSION);
  m.emplace_back("d", std::to_string(model.dimension));
  m.emplace_back("depth", std::to_string(model.blocks.size()));
  return m;
}

std::string model_to_onnx(const Transformer<Rational>& model, const ModelExportInfo& info,
                          std::optional<std::int64_t> tokens) {
  const OnnxElement element = info.onnx_float32 ? OnnxElement::float32 : OnnxElement::float64;
  GraphBuilder g(element);
  std::string x = "X";
  for (std::size_t i = 0; i < model.blocks.size(); ++i) {
    const std::string p = "block" + std::to_string(i);
    x = attention(g, x, model.blocks[i].sa, info.tau, model.dimension, p + ".attention");
    x = feed_forward(g, x, model.blocks[i].ff, p + ".feed_forward");
  }
  g.node("Identity", {x}, "Y");
  OnnxModel out;
  out.producer_name = "seqi";
  out.producer_version = SEQI_VERSION;
  out.doc = "A transformer built and certified by seqi: x = rho x + V m(x), x = eta x + W relu(U x + b) per block.";
  out.graph = g.take();
  out.graph.name = "seqi_transformer";
  const auto d = static_cast<std::int64_t>(model.dimension);
  using Dim = std::variant<std::int64_t, std::string>;
  const Dim n = tokens ? Dim(*tokens) : Dim(std::string("n"));
  out.graph.inputs.push_back({"X", element, {n, d}});
  out.graph.outputs.push_back({"Y", element, {n, d}});
  out.metadata = onnx_metadata(model, info);
  return encode_onnx_model(out);
}

}  // namespace seqi
