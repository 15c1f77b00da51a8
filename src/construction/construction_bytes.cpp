#include "seqi/construction/construction_bytes.hpp"

#include <unordered_map>

#include "seqi/core/byte_codec.hpp"

namespace seqi {
namespace {

void put_matrix(ByteWriter& w, const Mat<Rational>& m) {
  w.put(std::uint64_t(m.rows())), w.put(std::uint64_t(m.cols()));
  for (Eigen::Index i = 0; i < m.rows(); ++i)
    for (Eigen::Index k = 0; k < m.cols(); ++k) w.put(m(i, k));
}

Mat<Rational> get_matrix(ByteReader& r) {
  const auto rows = static_cast<Eigen::Index>(r.size()), cols = static_cast<Eigen::Index>(r.size());
  Mat<Rational> m(rows, cols);
  for (Eigen::Index i = 0; i < rows; ++i)
    for (Eigen::Index k = 0; k < cols; ++k) m(i, k) = r.rational();
  return m;
}

// Factored matrices with their factors stored once: each factor is written where it is first
// met and referred to by its number afterwards, so the layers that shared it share it again.
class FactorWriter {
 public:
  explicit FactorWriter(ByteWriter& w) : w_(w) {}
  void put(const FactoredMatrix<Rational>& m) {
    w_.put(m.factored());
    if (!m.factored()) return put_matrix(w_, m.left());
    put_factor(m.left()), put_factor(m.right());
  }

 private:
  void put_factor(const Mat<Rational>& f) {
    const auto [it, fresh] = seen_.try_emplace(&f, seen_.size());
    w_.put(std::uint64_t(it->second));
    if (fresh) put_matrix(w_, f);
  }
  ByteWriter& w_;
  std::unordered_map<const Mat<Rational>*, std::size_t> seen_;
};

class FactorReader {
 public:
  explicit FactorReader(ByteReader& r) : r_(r) {}
  FactoredMatrix<Rational> get() {
    if (!r_.flag()) return get_matrix(r_);
    auto left = get_factor();
    auto right = get_factor();
    if (left->cols() != right->rows() || left->cols() == 0) throw ByteCodecError("construction bytes: factors of unequal inner size");
    return FactoredMatrix<Rational>::product(std::move(left), std::move(right));
  }

 private:
  std::shared_ptr<Mat<Rational>> get_factor() {
    const auto i = r_.u64();
    if (i > read_.size()) throw ByteCodecError("construction bytes: a factor referred to before it is given");
    if (i == read_.size()) read_.push_back(std::make_shared<Mat<Rational>>(get_matrix(r_)));
    return read_[i];
  }
  ByteReader& r_;
  std::vector<std::shared_ptr<Mat<Rational>>> read_;
};

void put_structured(ByteWriter& w, const StructuredMatrix<Rational>& s) {
  w.put(s.alpha), w.put(std::uint64_t(s.terms.size()));
  for (const auto& t : s.terms) w.put(t.p), w.put(t.q);
}

StructuredMatrix<Rational> get_structured(ByteReader& r) {
  StructuredMatrix<Rational> s;
  s.alpha = r.rational();
  s.terms.resize(r.size());
  for (auto& t : s.terms) t.p = r.point(), t.q = r.point();
  return s;
}

template <class T, class Put>
void put_all(ByteWriter& w, const std::vector<T>& v, Put put) {
  w.put(std::uint64_t(v.size()));
  for (const auto& x : v) put(x);
}

template <class T, class Get>
std::vector<T> get_all(ByteReader& r, Get get) {
  std::vector<T> v(r.size());
  for (auto& x : v) x = get();
  return v;
}

void put_model(ByteWriter& w, const Transformer<Rational>& model) {
  w.put(std::uint64_t(model.dimension));
  FactorWriter factors(w);
  put_all(w, model.blocks, [&](const Block<Rational>& b) {
    w.put(std::uint64_t(b.phase));
    w.put(b.sa.rho), put_structured(w, b.sa.A), put_structured(w, b.sa.V);
    w.put(b.ff.eta), factors.put(b.ff.U), w.put(Point(b.ff.b)), factors.put(b.ff.W);
  });
}

Transformer<Rational> get_model(ByteReader& r) {
  Transformer<Rational> model;
  model.dimension = static_cast<int>(r.size());
  FactorReader factors(r);
  model.blocks = get_all<Block<Rational>>(r, [&] {
    Block<Rational> b;
    const auto phase = r.u64();
    if (phase > std::uint64_t(Phase::user)) throw ByteCodecError("construction bytes: unknown phase");
    b.phase = static_cast<Phase>(phase);
    b.sa.rho = r.rational(), b.sa.A = get_structured(r), b.sa.V = get_structured(r);
    b.ff.eta = r.rational(), b.ff.U = factors.get(), b.ff.b = r.point(), b.ff.W = factors.get();
    return b;
  });
  return model;
}

void put_record(ByteWriter& w, const ConstructionRecord& rec) {
  w.put(rec.seed);
  put_all(w, rec.choices, [&](const ChoiceLog& c) {
    w.put(std::string_view(c.what)), w.put(std::uint64_t(c.attempts)), w.put(c.final_range);
  });
  w.put(std::uint64_t(rec.separation.lifts)), w.put(rec.separation.shift_used);
  const PlacementRecord& p = rec.placement;
  w.put(p.eps), w.put(p.C), w.put(p.r0), w.put(p.reading);
  put_all(w, p.leaders, [&](const auto& l) { put_all(w, l, [&](std::size_t i) { w.put(std::uint64_t(i)); }); });
  put_all(w, p.placed, [&](const auto& l) { put_all(w, l, [&](const Point& x) { w.put(x); }); });
  put_all(w, p.R, [&](const Rational& x) { w.put(x); });
  put_all(w, p.rho, [&](const Rational& x) { w.put(x); });
  put_all(w, p.circle_t, [&](const auto& l) { put_all(w, l, [&](const Rational& x) { w.put(x); }); });
  w.put(p.collapse.has_value());
  if (p.collapse) w.put(p.collapse->first), w.put(p.collapse->second);
  w.put(p.split.has_value());
  if (p.split) w.put(*p.split);
  const InterpolationRecord& q = rec.interpolation;
  w.put(q.a), w.put(q.v), w.put(q.reading), w.put(q.gap), w.put(q.df);
  put_all(w, q.z, [&](const Rational& x) { w.put(x); });
  put_all(w, q.runs, [&](const auto& l) { put_all(w, l, [&](std::size_t i) { w.put(std::uint64_t(i)); }); });
  put_all(w, q.order, [&](std::size_t i) { w.put(std::uint64_t(i)); });
  put_all(w, q.mirrored, [&](bool m) { w.put(m); });
  w.put(q.offset);
  put_all(w, q.run_df, [&](const Rational& x) { w.put(x); });
  w.put(q.by_hinges), w.put(std::uint64_t(q.hinges));
  w.put(std::uint64_t(rec.collapse_block));
  w.put(rec.mean_collapse);
}

ConstructionRecord get_record(ByteReader& r) {
  ConstructionRecord rec;
  rec.seed = r.u64();
  rec.choices = get_all<ChoiceLog>(r, [&] {
    ChoiceLog c;
    c.what = r.string(), c.attempts = static_cast<int>(r.u64()), c.final_range = r.integer();
    return c;
  });
  rec.separation.lifts = r.size(), rec.separation.shift_used = r.flag();
  PlacementRecord& p = rec.placement;
  p.eps = r.rational(), p.C = r.rational(), p.r0 = r.rational(), p.reading = r.point();
  const auto rational = [&] { return r.rational(); };
  p.leaders = get_all<std::vector<std::size_t>>(r, [&] { return get_all<std::size_t>(r, [&] { return r.size(); }); });
  p.placed = get_all<std::vector<Point>>(r, [&] { return get_all<Point>(r, [&] { return r.point(); }); });
  p.R = get_all<Rational>(r, rational);
  p.rho = get_all<Rational>(r, rational);
  p.circle_t = get_all<std::vector<Rational>>(r, [&] { return get_all<Rational>(r, rational); });
  if (r.flag()) {
    Rational a1 = r.rational();
    p.collapse = std::pair{std::move(a1), r.rational()};
  }
  if (r.flag()) p.split = r.rational();
  InterpolationRecord& q = rec.interpolation;
  q.a = r.point(), q.v = r.point(), q.reading = r.point(), q.gap = r.rational(), q.df = r.rational();
  q.z = get_all<Rational>(r, rational);
  q.runs = get_all<std::vector<std::size_t>>(r, [&] { return get_all<std::size_t>(r, [&] { return r.size(); }); });
  q.order = get_all<std::size_t>(r, [&] { return r.size(); });
  q.mirrored.resize(r.size());
  for (std::size_t u = 0; u < q.mirrored.size(); ++u) q.mirrored[u] = r.flag();
  q.offset = r.point();
  q.run_df = get_all<Rational>(r, rational);
  q.by_hinges = r.flag(), q.hinges = r.size();
  rec.collapse_block = r.size();
  rec.mean_collapse = r.flag();
  return rec;
}

}  // namespace

std::string construction_to_bytes(const Construction& built) {
  ByteWriter w;
  put_model(w, built.model);
  put_record(w, built.record);
  return w.take();
}

Construction construction_from_bytes(std::string_view bytes) {
  ByteReader r(bytes);
  Construction built;
  built.model = get_model(r);
  built.record = get_record(r);
  if (!r.done()) throw ByteCodecError("construction bytes: extra bytes after the construction");
  return built;
}

}  // namespace seqi
