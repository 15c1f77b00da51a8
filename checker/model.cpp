// The model file (docs/formats.md, "Model JSON"), its counts and its exact squared norm.
#include <algorithm>
#include <map>

#include "check.hpp"

namespace check {
namespace {

Vec read_vec(const json& list, std::size_t size, const std::string& where) {
  if (!list.is_array() || list.size() != size)
    throw BadInput(where + ": expected a list of " + std::to_string(size) + " exact rationals");
  Vec v;
  for (std::size_t i = 0; i < list.size(); ++i) v.push_back(parse_q(list[i], where + " entry " + std::to_string(i + 1)));
  return v;
}

// rows == 0: any number of rows (the width of U).
std::vector<Vec> read_rows(const json& list, std::size_t rows, std::size_t cols, const std::string& where) {
  if (!list.is_array() || (rows && list.size() != rows))
    throw BadInput(where + ": expected " + (rows ? std::to_string(rows) : std::string("a list of")) + " rows");
  std::vector<Vec> out;
  for (std::size_t r = 0; r < list.size(); ++r) out.push_back(read_vec(list[r], cols, where + " row " + std::to_string(r + 1)));
  return out;
}

LowRank read_low_rank(const json& j, std::size_t d, const std::string& where) {
  LowRank m{parse_q(field(j, "alpha", where), where + ".alpha"), {}};
  const json& terms = field(j, "terms", where);
  if (!terms.is_array()) throw BadInput(where + ".terms: expected a list");
  for (std::size_t t = 0; t < terms.size(); ++t) {
    const std::string at = where + " term " + std::to_string(t + 1);
    m.terms.emplace_back(read_vec(field(terms[t], "p", at), d, at + ".p"), read_vec(field(terms[t], "q", at), d, at + ".q"));
  }
  return m;
}

Q sum_sq(const Vec& v) {
  Q s = 0;
  for (const auto& x : v) s += x * x;
  return s;
}

Q low_rank_norm_sq(const LowRank& m) {
  Q s = m.alpha * m.alpha;
  for (const auto& [p, q] : m.terms) s += sum_sq(p) + sum_sq(q);
  return s;
}

}  // namespace

Vec LowRank::apply(const Vec& x) const {
  Vec y(x.size());
  for (std::size_t i = 0; i < x.size(); ++i) y[i] = alpha * x[i];
  for (const auto& [p, q] : terms) {
    Q c = 0;
    for (std::size_t i = 0; i < x.size(); ++i) c += q[i] * x[i];
    if (c != 0)
      for (std::size_t i = 0; i < x.size(); ++i) y[i] += p[i] * c;
  }
  return y;
}

Model read_model(const std::string& text, const std::string& path) {
  const json j = parse_json_exact(text, path);
  if (field(j, "format", path) != "seqi-transformer") throw BadInput(path + ": \"format\" is not \"seqi-transformer\"");
  if (field(j, "version", path) != "1") throw BadInput(path + ": this checker reads model files of version 1");
  Model m;
  m.d = parse_count(field(j, "dimension", path), path + " \"dimension\"");
  const json& blocks = field(j, "blocks", path);
  if (!blocks.is_array()) throw BadInput(path + ": \"blocks\" must be a list");
  m.blocks.reserve(blocks.size());
  for (std::size_t k = 0; k < blocks.size(); ++k) {
    const std::string w = path + ": block " + std::to_string(k + 1);
    const json& bj = blocks[k];
    Block b;
    b.phase = bj.is_object() && bj.contains("phase") && bj["phase"].is_string() ? bj["phase"].get<std::string>() : "user";
    const json& sa = field(bj, "attention", w);
    b.rho = parse_q(field(sa, "rho", w), w + " attention.rho");
    b.A = read_low_rank(field(sa, "A", w), m.d, w + " attention.A");
    b.V = read_low_rank(field(sa, "V", w), m.d, w + " attention.V");
    const json& ff = field(bj, "feed_forward", w);
    b.eta = parse_q(field(ff, "eta", w), w + " feed_forward.eta");
    b.U = read_rows(field(ff, "U", w), 0, m.d, w + " feed_forward.U");
    b.b = read_vec(field(ff, "b", w), b.U.size(), w + " feed_forward.b");
    b.W = read_rows(field(ff, "W", w), m.d, b.U.size(), w + " feed_forward.W");
    m.blocks.push_back(std::move(b));
  }
  return m;
}

// Stored scalars (lem:counts): per block rho, A and V as alpha plus 2d per rank-one term,
// eta, U, b, W; dense: A and V as d x d matrices.
ModelCounts count_model(const Model& m) {
  ModelCounts c;
  std::map<std::string, std::size_t> phases;
  c.blocks = m.blocks.size();
  for (const auto& b : m.blocks) {
    const std::size_t w = b.U.size(), ff = 1 + 2 * w * m.d + w;
    ++phases[b.phase];
    c.width = std::max(c.width, w);
    c.heads = std::max(c.heads, b.A.terms.size());
    c.rank_V = std::max(c.rank_V, b.V.terms.size());
    c.params += ff + 3 + 2 * m.d * (b.A.terms.size() + b.V.terms.size());
    c.params_dense += ff + 1 + 2 * m.d * m.d;
    c.norm_sq += b.rho * b.rho + b.eta * b.eta + low_rank_norm_sq(b.A) + low_rank_norm_sq(b.V) + sum_sq(b.b);
    for (const auto& row : b.U) c.norm_sq += sum_sq(row);
    for (const auto& row : b.W) c.norm_sq += sum_sq(row);
  }
  c.by_phase.assign(phases.begin(), phases.end());
  return c;
}

}  // namespace check
