// A model written by `verify --save-model M.safetensors` (docs/formats.md, docs/pytorch.md):
// an 8-byte little-endian header length, a JSON header naming each tensor's dtype, shape and
// byte range, then the tensors' bytes. The exact model is the metadata key "seqi_model_json"
// (compact JSON); the float64 tensors are the PyTorch layout of lem:torch-layout.
#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>
#include <functional>
#include <limits>

#include "claims.hpp"

namespace check {
namespace {

using Entry = std::function<Q(std::size_t, std::size_t)>;  // (row, column) -> exact value

struct Expected {
  const char* param;
  std::size_t rows, cols;  // cols == 0: a vector of `rows` entries
  Entry at;
};

// Sum over terms of p[r] q[c], plus alpha on the diagonal: the dense d x d matrix.
Q dense(const LowRank& m, std::size_t r, std::size_t c) {
  Q s = r == c ? m.alpha : Q(0);
  for (const auto& [p, q] : m.terms) s += p[r] * q[c];
  return s;
}

// The heads of A: one per rank-one term, or d (Wq = I, Wk = A^T) when alpha != 0 or the
// terms outnumber d.
bool heads_are_terms(const LowRank& A, std::size_t d) { return A.alpha == 0 && A.terms.size() <= d; }

// The tensors of one block (lem:torch-layout), padded with zeros to h heads and width w.
std::vector<Expected> block_layout(const Block& b, std::size_t d, std::size_t h, std::size_t w) {
  const bool terms = heads_are_terms(b.A, d);
  const auto unit = [](const std::vector<Vec>& rows, std::size_t r, std::size_t c) {
    return r < rows.size() && c < rows[r].size() ? rows[r][c] : Q(0);
  };
  return {
      {"rho", 1, 0, [&b](std::size_t, std::size_t) { return b.rho; }},
      {"eta", 1, 0, [&b](std::size_t, std::size_t) { return b.eta; }},
      {"attn.to_q.weight", h, d,
       [&b, terms, d](std::size_t r, std::size_t c) {
         if (terms) return r < b.A.terms.size() ? b.A.terms[r].second[c] : Q(0);
         return Q(r < d && r == c ? 1 : 0);
       }},
      {"attn.to_k.weight", h, d,
       [&b, terms, d](std::size_t r, std::size_t c) {
         if (terms) return r < b.A.terms.size() ? b.A.terms[r].first[c] : Q(0);
         return r < d ? dense(b.A, c, r) : Q(0);
       }},
      {"attn.to_v.weight", d, d, [&b](std::size_t r, std::size_t c) { return dense(b.V, r, c); }},
      {"ff.0.weight", w, d, [&b, unit](std::size_t r, std::size_t c) { return unit(b.U, r, c); }},
      {"ff.0.bias", w, 0, [&b](std::size_t r, std::size_t) { return r < b.b.size() ? b.b[r] : Q(0); }},
      {"ff.2.weight", d, w, [&b, unit](std::size_t r, std::size_t c) { return unit(b.W, r, c); }},
  };
}

// Is the double with these bits the double nearest to x, ties to even? Decided in exact
// rationals; nextafter only names the neighbouring doubles (the one past the largest finite
// double is taken as 2^1024).
bool nearest_double(std::uint64_t bits, const Q& x) {
  const auto t = std::bit_cast<double>(bits);
  if (!std::isfinite(t)) return false;
  if (x == 0) return t == 0;
  const double inf = std::numeric_limits<double>::infinity(), below = std::nextafter(t, -inf), above = std::nextafter(t, inf);
  const Q tq(t), lo = std::isinf(below) ? Q(2 * tq - Q(above)) : Q(below), hi = std::isinf(above) ? Q(2 * tq - lo) : Q(above);
  const Q e = abs(x - tq), e_lo = abs(x - lo), e_hi = abs(x - hi);
  if (e > e_lo || e > e_hi) return false;
  return (e != e_lo && e != e_hi) || (bits & 1) == 0;
}

std::uint64_t le_u64(const std::string& bytes, std::size_t at) {
  std::uint64_t v = 0;
  for (std::size_t k = 0; k < 8; ++k) v |= std::uint64_t{static_cast<unsigned char>(bytes[at + k])} << (8 * k);
  return v;
}

std::string shape_text(const std::vector<std::size_t>& s) {
  std::string out = "[";
  for (std::size_t k = 0; k < s.size(); ++k) out += (k ? ", " : "") + std::to_string(s[k]);
  return out + "]";
}

// One tensor against its exact values: "" when every entry is the nearest double.
std::string tensor_difference(const SafetensorsModel& st, const std::string& name, const Expected& e) {
  const auto it = st.tensors.find(name);
  if (it == st.tensors.end()) return "the tensor " + name + " is missing";
  const std::vector<std::size_t> shape = e.cols ? std::vector<std::size_t>{e.rows, e.cols} : std::vector<std::size_t>{e.rows};
  if (it->second.shape != shape)
    return name + " has shape " + shape_text(it->second.shape) + ", the layout needs " + shape_text(shape);
  const std::size_t cols = e.cols ? e.cols : 1;
  for (std::size_t r = 0; r < e.rows; ++r)
    for (std::size_t c = 0; c < cols; ++c) {
      const Q x = e.at(r, c);
      const std::uint64_t bits = le_u64(st.file, it->second.begin + 8 * (r * cols + c));
      if (!nearest_double(bits, x))
        return name + " entry (" + std::to_string(r + 1) + ", " + std::to_string(c + 1) + ") holds " +
               approx(Q(std::bit_cast<double>(bits))) + " (bits " + std::to_string(bits) +
               "), not the double nearest to the exact " + x.get_str();
    }
  return "";
}

// The metadata against the certificate, the dataset and the exact model.
void check_metadata(Report& r, const Inputs& in, const SafetensorsModel& st, std::size_t h, std::size_t w) {
  const auto meta = [&st](const char* key) { return st.metadata.count(key) ? st.metadata.at(key) : std::string("(missing)"); };
  const std::string setting = field(in.cert, "setting", "certificate"), hash = in.dataset_sha256;
  std::vector<std::pair<std::string, std::string>> wrong;  // key, why
  if (meta("attention") != setting)
    wrong.emplace_back("attention", meta("attention") + ", the certificate's setting is " + setting);
  if (meta("dataset_sha256") != hash) wrong.emplace_back("dataset_sha256", meta("dataset_sha256") + ", the dataset hashes to " + hash);
  if (setting == "softmax") {
    const Q tau = parse_q(field(field(in.cert, "softmax", "certificate"), "tau", "certificate softmax"), "certificate softmax.tau");
    if (!st.metadata.count("tau") || parse_q(json(meta("tau")), "the model's metadata tau") != tau)
      wrong.emplace_back("tau", meta("tau") + ", the certificate's softmax.tau is " + tau.get_str());
  }
  const Model& m = in.model;
  for (const auto& [key, value] : {std::pair<const char*, std::size_t>{"d", m.d}, {"depth", m.blocks.size()}, {"h", h}, {"width", w}})
    if (meta(key) != std::to_string(value)) wrong.emplace_back(key, meta(key) + ", recomputed " + std::to_string(value));
  for (const auto& [key, why] : wrong) r.refuted("model metadata " + key, why);
  if (wrong.empty()) r.confirmed("model metadata: attention, dataset_sha256, " + std::string(setting == "softmax" ? "tau, " : "") +
                                 "d, depth, h and width agree with the certificate, the dataset and the exact model");
}

}  // namespace

SafetensorsModel read_safetensors(std::string bytes, const std::string& path) {
  SafetensorsModel st{std::move(bytes), {}, {}, {}};
  const std::string& f = st.file;
  if (f.size() < 8) throw BadInput(path + ": " + std::to_string(f.size()) + " bytes, too short for a safetensors file");
  const std::uint64_t n = le_u64(f, 0);
  if (n > f.size() - 8)
    throw BadInput(path + ": the header length field says " + std::to_string(n) + " bytes, only " +
                   std::to_string(f.size() - 8) + " follow (not a safetensors file, or truncated)");
  const json header = parse_json_exact(f.substr(8, n), path + " header");
  if (!header.is_object()) throw BadInput(path + ": the safetensors header is not a JSON object");
  const std::size_t data = 8 + n, size = f.size() - data;
  std::vector<std::pair<std::size_t, std::size_t>> ranges;
  for (const auto& [name, v] : header.items()) {
    const std::string where = path + ": tensor \"" + name + "\"";
    if (name == "__metadata__") {
      if (!v.is_object()) throw BadInput(path + ": __metadata__ must map names to strings");
      for (const auto& [k, s] : v.items())
        if (!s.is_string()) throw BadInput(path + ": __metadata__ \"" + k + "\" must be a string");
        else st.metadata[k] = s.get<std::string>();
      continue;
    }
    if (field(v, "dtype", where) != "F64") throw BadInput(where + ": dtype must be F64 (verify --save-model writes float64)");
    const json& shape = field(v, "shape", where);
    const json& range = field(v, "data_offsets", where);
    if (!shape.is_array() || !range.is_array() || range.size() != 2)
      throw BadInput(where + ": \"shape\" must be a list and \"data_offsets\" two integers");
    SafetensorsModel::Tensor t{{}, parse_count(range[0], where + " data_offsets")};
    std::size_t count = 1;
    for (const auto& s : shape) {
      t.shape.push_back(parse_count(s, where + " shape"));
      if (t.shape.back() != 0 && count > size / 8 / t.shape.back()) throw BadInput(where + ": the shape exceeds the file");
      count *= t.shape.back();
    }
    const std::size_t end = parse_count(range[1], where + " data_offsets");
    if (end < t.begin || end - t.begin != 8 * count)
      throw BadInput(where + ": data_offsets hold " + std::to_string(end - std::min(end, t.begin)) + " bytes, shape " +
                     shape_text(t.shape) + " of F64 needs " + std::to_string(8 * count));
    ranges.emplace_back(t.begin, end);
    t.begin += data;
    st.tensors.emplace(name, std::move(t));
  }
  std::sort(ranges.begin(), ranges.end());
  std::size_t at = 0;
  for (const auto& [begin, end] : ranges)
    if (begin != at) throw BadInput(path + ": the tensors' data_offsets leave a gap or overlap at byte " + std::to_string(at));
    else at = end;
  if (at != size) throw BadInput(path + ": the tensors cover " + std::to_string(at) + " of the " + std::to_string(size) + " data bytes");
  const auto model = st.metadata.find("seqi_model_json");
  if (st.metadata["format"] != "seqi-transformer-safetensors" || model == st.metadata.end())
    throw BadInput(path + ": no exact model in the metadata (format \"seqi-transformer-safetensors\", key "
                   "\"seqi_model_json\"); only verify --save-model M.safetensors writes one: give the model JSON instead");
  (void)parse_json_exact(model->second, path + " metadata seqi_model_json");  // well formed, nesting bounded
  st.model_json = json::parse(model->second).dump(1) + "\n";
  return st;
}

void check_safetensors(Report& r, const Inputs& in, const SafetensorsModel& st) {
  const Model& m = in.model;
  std::size_t h = 1, w = 4;
  for (const auto& b : m.blocks) {
    h = std::max(h, heads_are_terms(b.A, m.d) ? b.A.terms.size() : m.d);
    w = std::max(w, b.U.size());
  }
  std::string diff;
  std::size_t entries = 0;
  for (std::size_t k = 0; k < m.blocks.size() && diff.empty(); ++k)
    for (const Expected& e : block_layout(m.blocks[k], m.d, h, w)) {
      if (diff.empty()) diff = tensor_difference(st, "blocks." + std::to_string(k) + "." + e.param, e);
      entries += e.rows * (e.cols ? e.cols : 1);
    }
  if (diff.empty() && st.tensors.size() != 8 * m.blocks.size())
    diff = std::to_string(st.tensors.size()) + " tensors, the layout of " + std::to_string(m.blocks.size()) + " blocks has " +
           std::to_string(8 * m.blocks.size());
  if (diff.empty()) r.confirmed("model tensors: all " + std::to_string(entries) + " float64 entries are the doubles "
                                "nearest to the exact model's, in the PyTorch layout (h = " + std::to_string(h) +
                                ", width " + std::to_string(w) + ")");
  else r.refuted("model tensors", diff);
  check_metadata(r, in, st, h, w);
}

}  // namespace check
