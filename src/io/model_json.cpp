#include "seqi/io/model_json.hpp"

#include "seqi/core/dataset.hpp"
#include "seqi/io/atomic_write.hpp"
#include "seqi/io/dataset_json.hpp"
#include "seqi/io/exact_json.hpp"
#include "seqi/io/quote_value.hpp"
#include "seqi/io/read_file.hpp"
#include "seqi/core/input_error.hpp"

namespace seqi {
namespace {

using json = nlohmann::json;

json vec_json(const Point& v) {
  json a = json::array();
  for (Eigen::Index i = 0; i < v.size(); ++i) a.push_back(to_string(v[i]));
  return a;
}

json rows_json(const Mat<Rational>& m) {
  json a = json::array();
  for (Eigen::Index i = 0; i < m.rows(); ++i) a.push_back(vec_json(m.row(i).transpose()));
  return a;
}

json structured_json(const StructuredMatrix<Rational>& s) {
  json terms = json::array();
  for (const auto& t : s.terms) terms.push_back({{"p", vec_json(t.p)}, {"q", vec_json(t.q)}});
  return {{"alpha", to_string(s.alpha)}, {"terms", terms}};
}

// A JSON value for a message: strings quoted (shortened, escaped), anything else by its type
// only (never dumped: a hostile value may be huge or deeply nested).
std::string shown(const json& v) {
  if (v.is_string()) return quote_value(v.get_ref<const std::string&>());
  return std::string(v.is_number() ? "a number" : v.is_array() ? "an array" : v.is_object() ? "an object" : v.type_name());
}

// Reading with the location of every failure in the message.
class Reader {
 public:
  explicit Reader(std::string source) : source_(std::move(source)) {}

  [[noreturn]] void fail(const std::string& where, const std::string& what) const {
    throw InputError(source_ + ": " + where + ": " + what);
  }
  const json& field(const json& obj, const char* key, const std::string& where) const {
    if (!obj.is_object()) fail(where, "expected an object");
    auto it = obj.find(key);
    if (it == obj.end()) fail(where, std::string("missing key \"") + key + "\"");
    return *it;
  }
  Rational scalar(const json& v, const std::string& where) const {
    if (!v.is_string()) fail(where, "expected a rational (string such as \"-3/7\" or a number), got " + shown(v));
    std::string why;
    auto r = parse_rational(v.get<std::string>(), &why, kMaxModelNumberDigits);
    if (!r) fail(where, quote_value(v.get<std::string>()) + " is not an exact rational (" + why + ")");
    return *r;
  }
  Point vec(const json& v, Eigen::Index size, const std::string& where) const {
    if (!v.is_array()) fail(where, "expected an array");
    if (static_cast<Eigen::Index>(v.size()) != size)
      fail(where, "expected " + std::to_string(size) + " entries, got " + std::to_string(v.size()));
    Point p(size);
    for (Eigen::Index i = 0; i < size; ++i) p[i] = scalar(v[static_cast<std::size_t>(i)], where + "[" + std::to_string(i + 1) + "]");
    return p;
  }
  Mat<Rational> rows(const json& v, Eigen::Index nrows, Eigen::Index ncols, const std::string& where) const {
    if (!v.is_array()) fail(where, "expected an array of rows");
    if (nrows >= 0 && static_cast<Eigen::Index>(v.size()) != nrows)
      fail(where, "expected " + std::to_string(nrows) + " rows, got " + std::to_string(v.size()));
    Mat<Rational> m(static_cast<Eigen::Index>(v.size()), ncols);
    for (std::size_t i = 0; i < v.size(); ++i)
      m.row(static_cast<Eigen::Index>(i)) = vec(v[i], ncols, where + " row " + std::to_string(i + 1)).transpose();
    return m;
  }
  StructuredMatrix<Rational> structured(const json& v, int d, const std::string& where) const {
    StructuredMatrix<Rational> s{scalar(field(v, "alpha", where), where + ".alpha"), {}};
    if (auto it = v.find("terms"); it != v.end()) {
      if (!it->is_array()) fail(where + ".terms", "expected an array");
      for (std::size_t k = 0; k < it->size(); ++k) {
        const std::string w = where + ".terms[" + std::to_string(k + 1) + "]";
        s.terms.push_back({vec(field((*it)[k], "p", w), d, w + ".p"), vec(field((*it)[k], "q", w), d, w + ".q")});
      }
    }
    return s;
  }

 private:
  std::string source_;
};

std::optional<Phase> phase_from(const std::string& s) {
  for (Phase p : {Phase::separation, Phase::placement, Phase::interpolation, Phase::user})
    if (s == phase_name(p)) return p;
  return std::nullopt;
}

}  // namespace

json model_to_json(const Transformer<Rational>& model) {
  json blocks = json::array();
  for (const auto& b : model.blocks)
    blocks.push_back({{"phase", phase_name(b.phase)},
                      {"attention", {{"rho", to_string(b.sa.rho)}, {"A", structured_json(b.sa.A)}, {"V", structured_json(b.sa.V)}}},
                      {"feed_forward",
                       {{"eta", to_string(b.ff.eta)}, {"U", rows_json(b.ff.U.dense())}, {"b", vec_json(b.ff.b)}, {"W", rows_json(b.ff.W.dense())}}}});
  return {{"format", "seqi-transformer"}, {"version", 1}, {"dimension", model.dimension}, {"blocks", blocks}};
}

std::string model_json_text(const Transformer<Rational>& model) {
  return model_to_json(model).dump(1) + "\n";  // depth 6: dump's recursion is bounded
}

void write_model_file(const Transformer<Rational>& model, const std::string& path) {
  const std::string text = model_json_text(model);
  write_file_atomically(path, "model", [&](std::ostream& out) { out << text; });
}

Transformer<Rational> model_from_json(const json& j, const std::string& source) {
  Reader r(source);
  if (!j.is_object())
    r.fail("top level", "expected an object {\"format\": \"seqi-transformer\", \"version\": 1, ...}, got " + shown(j));
  // format and version are required, as a dataset's keys are: a file of another kind is refused.
  if (const json& f = r.field(j, "format", "top level"); f != "seqi-transformer")
    r.fail("format", "expected \"seqi-transformer\", got " + shown(f));
  if (const json& v = r.field(j, "version", "top level"); v != "1")
    r.fail("version", "this engine reads version 1 model files, got " + shown(v));
  const auto& dim = r.field(j, "dimension", "top level");
  std::string why;
  auto d_rat = dim.is_string() ? parse_rational(dim.get<std::string>(), &why) : std::nullopt;  // "1e6" allowed
  if (!d_rat || denominator(*d_rat) != 1 || *d_rat < 2 || *d_rat > Rational(Integer(kMaxDimension)))
    r.fail("dimension", "expected an integer d >= 2");
  Transformer<Rational> model;
  model.dimension = d_rat->convert_to<int>();
  const int d = model.dimension;
  const auto& blocks = r.field(j, "blocks", "top level");
  if (!blocks.is_array()) r.fail("blocks", "expected an array");
  for (std::size_t k = 0; k < blocks.size(); ++k) {
    const std::string w = "block " + std::to_string(k + 1);
    const json& bj = blocks[k];
    Block<Rational> b;
    if (auto it = bj.find("phase"); bj.is_object() && it != bj.end()) {
      auto phase = it->is_string() ? phase_from(it->get<std::string>()) : std::nullopt;
      if (!phase) r.fail(w + " phase", "expected one of separation, placement, interpolation, user; got " + shown(*it));
      b.phase = *phase;
    }
    const json& sa = r.field(bj, "attention", w);
    b.sa.rho = r.scalar(r.field(sa, "rho", w + " attention"), w + " attention.rho");
    b.sa.A = r.structured(r.field(sa, "A", w + " attention"), d, w + " attention.A");
    b.sa.V = r.structured(r.field(sa, "V", w + " attention"), d, w + " attention.V");
    const json& ff = r.field(bj, "feed_forward", w);
    b.ff.eta = r.scalar(r.field(ff, "eta", w + " feed_forward"), w + " feed_forward.eta");
    b.ff.U = r.rows(r.field(ff, "U", w + " feed_forward"), -1, d, w + " feed_forward.U");
    const auto width = b.ff.U.rows();
    b.ff.b = r.vec(r.field(ff, "b", w + " feed_forward"), width, w + " feed_forward.b");
    b.ff.W = r.rows(r.field(ff, "W", w + " feed_forward"), d, width, w + " feed_forward.W");
    model.blocks.push_back(std::move(b));
  }
  return model;
}

Transformer<Rational> read_model_file(const std::string& path) {
  const std::string text = read_file_limited(path, std::uintmax_t{1} << 32, "model");
  return model_from_json(parse_exact_json(text, path), path);
}

}  // namespace seqi
