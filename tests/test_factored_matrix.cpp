// FactoredMatrix against the dense product computed from the definition (entry by entry, exact
// rationals): random factors, every read, the squared norm, scaling, copy-on-write, and the
// flat hat's factored columns against lem:flat-hat's formulas. SEQI_SEED replays.
#include <boost/test/unit_test.hpp>

#include <random>
#include <set>

#include "seqi/construction/construction_bytes.hpp"
#include "seqi/construction/hats.hpp"
#include "seqi/io/dataset_json.hpp"
#include "seqi/model/factored_matrix.hpp"
#include "build_paths.hpp"
#include "seeded_oracles.hpp"

BOOST_AUTO_TEST_SUITE(test_factored_matrix)

using namespace seqi;

namespace {

struct Draw {
  std::mt19937_64 gen;
  // A small rational, zero about one time in four (zeros take the skipping paths).
  Rational q() {
    if (gen() % 4 == 0) return 0;
    return Rational(static_cast<long>(gen() % 41) - 20, static_cast<long>(gen() % 7) + 1);
  }
  Mat<Rational> mat(Eigen::Index r, Eigen::Index c) {
    Mat<Rational> m(r, c);
    for (Eigen::Index i = 0; i < r; ++i)
      for (Eigen::Index j = 0; j < c; ++j) m(i, j) = q();
    return m;
  }
};

// L R entry by entry from the definition.
Mat<Rational> product_of(const Mat<Rational>& l, const Mat<Rational>& r) {
  Mat<Rational> m(l.rows(), r.cols());
  for (Eigen::Index i = 0; i < l.rows(); ++i)
    for (Eigen::Index j = 0; j < r.cols(); ++j) {
      Rational s = 0;
      for (Eigen::Index k = 0; k < l.cols(); ++k) s += l(i, k) * r(k, j);
      m(i, j) = s;
    }
  return m;
}

Rational sum_of_squares(const Mat<Rational>& m) {
  Rational s = 0;
  for (Eigen::Index i = 0; i < m.size(); ++i) s += m.data()[i] * m.data()[i];
  return s;
}

}  // namespace

BOOST_AUTO_TEST_CASE(every_read_equals_the_dense_product) {
  Draw draw{std::mt19937_64(testing::base_seed("test_factored_matrix"))};
  for (int trial = 0; trial < 200; ++trial) {
    const auto rows = static_cast<Eigen::Index>(1 + draw.gen() % 6), cols = static_cast<Eigen::Index>(1 + draw.gen() % 6);
    const auto inner = static_cast<Eigen::Index>(1 + draw.gen() % 3);
    const Mat<Rational> l = draw.mat(rows, inner), r = draw.mat(inner, cols), want = product_of(l, r);
    const auto m = FactoredMatrix<Rational>::product(std::make_shared<Mat<Rational>>(l), std::make_shared<Mat<Rational>>(r));
    BOOST_TEST_CONTEXT("trial " << trial) {
      BOOST_TEST(m.factored());
      BOOST_TEST((m.rows() == rows && m.cols() == cols && m.size() == rows * cols));
      BOOST_TEST((m.dense() == want));
      for (Eigen::Index i = 0; i < rows; ++i) BOOST_TEST((m.row(i) == want.row(i)));
      for (Eigen::Index j = 0; j < cols; ++j) BOOST_TEST((m.col(j) == want.col(j)));
      BOOST_TEST(m(rows - 1, cols - 1) == want(rows - 1, cols - 1));
      const Vec<Rational> x = draw.mat(cols, 1);
      BOOST_TEST((m.apply(x) == product_of(want, x)));
      BOOST_TEST(m.squared_norm() == sum_of_squares(want));
      const FactoredMatrix<Rational> dense(want);
      BOOST_TEST(!dense.factored());
      BOOST_TEST((dense.apply(x) == m.apply(x)));
      BOOST_TEST(dense.squared_norm() == m.squared_norm());
    }
  }
}

BOOST_AUTO_TEST_CASE(scaling_and_editing_leave_the_sharers_alone) {
  Draw draw{std::mt19937_64(testing::base_seed("test_factored_matrix") + 1)};
  auto shared = std::make_shared<Mat<Rational>>(draw.mat(1, 5));
  const Mat<Rational> l = draw.mat(4, 1);
  auto a = FactoredMatrix<Rational>::product(std::make_shared<Mat<Rational>>(l), shared);
  const auto b = FactoredMatrix<Rational>::product(std::make_shared<Mat<Rational>>(l), shared);
  const Mat<Rational> before = b.dense();
  // Row 2 of a times 4: a's left factor changes, the shared right factor does not.
  a.scale_row(2, [](Rational& x) { x *= 4; });
  Mat<Rational> want = before;
  want.row(2) *= Rational(4);
  BOOST_TEST((a.dense() == want));
  BOOST_TEST((b.dense() == before));
  BOOST_TEST(&a.right() == shared.get());
  // Column 3 of a times 1/2: the shared factor is copied first.
  a.scale_col(3, [](Rational& x) { x /= 2; });
  want.col(3) /= Rational(2);
  BOOST_TEST((a.dense() == want));
  BOOST_TEST((b.dense() == before));
  BOOST_TEST(&a.right() != shared.get());
  // A copy edited densely leaves the original factored and unchanged.
  FactoredMatrix<Rational> c = b;
  c.edit()(0, 0) += 1;
  BOOST_TEST(!c.factored());
  BOOST_TEST(b.factored());
  BOOST_TEST((b.dense() == before));
  BOOST_TEST(c(0, 0) == before(0, 0) + 1);
}

BOOST_AUTO_TEST_CASE(a_flat_hat_has_the_columns_of_lem_flat_hat) {
  Draw draw{std::mt19937_64(testing::base_seed("test_factored_matrix") + 2)};
  for (int trial = 0; trial < 50; ++trial) {
    Point r = draw.mat(4, 1), y = draw.mat(4, 1);
    if (r.isZero()) r[0] = 1;
    const Point v = r / norm_sq(r);
    const Rational z_lo = draw.q(), z_hi = z_lo + Rational(static_cast<long>(draw.gen() % 5)), df = Rational(1, 4);
    const FeedForward<Rational> ff = flat_run_layer(r, v, z_lo, z_hi, df, y);
    BOOST_TEST_CONTEXT("trial " << trial) {
      BOOST_TEST((ff.U.factored() && ff.W.factored()));
      // Before balancing, unit k reads r with offset -b_k and writes c_k; balancing scales the
      // unit's input by s_k > 0 and its output by 1 / s_k.
      const Rational b1 = z_lo - 2 * df, b2 = z_lo - df, b3 = z_hi + df, b4 = z_hi + 2 * df;
      const Point c1 = (y - v * b2) / (b2 - b1), c4 = (y - v * b3) / (b4 - b3);
      const std::vector<Point> cols{c1, Point(-v - c1), Point(v - c4), c4};
      const std::vector<Rational> breaks{b1, b2, b3, b4};
      for (Eigen::Index k = 0; k < 4; ++k) {
        Eigen::Index pivot = 0;
        while (r[pivot] == 0) ++pivot;
        const Rational s = ff.U(k, pivot) / r[pivot];
        BOOST_TEST(s > 0);
        BOOST_TEST(ff.b[k] == -breaks[static_cast<std::size_t>(k)] * s);
        BOOST_TEST((ff.U.row(k) == Eigen::Matrix<Rational, 1, Eigen::Dynamic>(r.transpose() * s)));
        BOOST_TEST((ff.W.col(k) == Point(cols[static_cast<std::size_t>(k)] / s)));
      }
    }
  }
}

BOOST_AUTO_TEST_CASE(shared_factors_stay_shared_through_bytes) {
  // regression/mixed-scale.json: plain and mirrored flat hats (two readings, several targets).
  const Dataset data = read_dataset_file(std::string(SEQI_DATASETS_DIR) + "/regression/mixed-scale.json");
  const Construction built = build_interpolating_transformer(data, 1);
  const Construction back = construction_from_bytes(construction_to_bytes(built));
  const auto distinct_factors = [](const Transformer<Rational>& m) {
    std::set<const Mat<Rational>*> seen;
    std::size_t factored = 0;
    for (const auto& b : m.blocks)
      for (const auto* f : {&b.ff.U, &b.ff.W})
        if (f->factored()) ++factored, seen.insert(&f->left()), seen.insert(&f->right());
    return std::pair{factored, seen.size()};
  };
  const auto [factored, distinct] = distinct_factors(built.model);
  BOOST_TEST(factored > 0u);
  BOOST_TEST(distinct < 2 * factored);  // the readings and [y v] are shared
  BOOST_TEST((distinct_factors(back.model) == std::pair{factored, distinct}));
  BOOST_REQUIRE(back.model.blocks.size() == built.model.blocks.size());
  for (std::size_t i = 0; i < built.model.blocks.size(); ++i) {
    BOOST_TEST((back.model.blocks[i].ff.U == built.model.blocks[i].ff.U));
    BOOST_TEST((back.model.blocks[i].ff.W == built.model.blocks[i].ff.W));
  }
}

BOOST_AUTO_TEST_SUITE_END()
