#include "seqi/io/random_model.hpp"

namespace seqi {

Point RandomModelDraw::point(int d, long den) {
  Point p(d);
  for (int k = 0; k < d; ++k) p[k] = small(den);
  return p;
}

StructuredMatrix<Rational> random_structured(RandomModelDraw& r, int d, std::size_t max_terms, long den) {
  StructuredMatrix<Rational> m;
  m.alpha = r.integer(0, 2) ? r.small(den) : Rational(0);
  const auto terms = static_cast<std::size_t>(r.integer(0, static_cast<long>(max_terms)));
  for (std::size_t t = 0; t < terms; ++t) m.terms.push_back({r.point(d, den), Point(r.point(d, den) / Rational(d))});
  return m;
}

FeedForward<Rational> random_feed_forward(RandomModelDraw& r, int d) {
  const long w = r.integer(1, 4);
  FeedForward<Rational> ff;
  ff.eta = r.integer(0, 3) ? Rational(1) : Rational(1, 2);
  Mat<Rational> U(w, d), W(d, w);
  ff.b = Vec<Rational>(w);
  for (long i = 0; i < w; ++i) {
    for (int k = 0; k < d; ++k) U(i, k) = r.small(8), W(k, i) = r.small(16);
    ff.b[i] = r.small(8);
  }
  ff.U = std::move(U), ff.W = std::move(W);
  return ff;
}

Transformer<Rational> random_model(RandomModelDraw& r, int d, std::size_t blocks) {
  Transformer<Rational> m{d, {}};
  for (std::size_t b = 0; b < blocks; ++b) {
    Block<Rational> blk;
    blk.sa.rho = r.integer(0, 3) ? Rational(1) : Rational(1, 2);
    blk.sa.A = random_structured(r, d, 3, 4);
    blk.sa.V = random_structured(r, d, 3, 8);
    blk.ff = random_feed_forward(r, d);
    m.blocks.push_back(std::move(blk));
  }
  return m;
}

}  // namespace seqi
