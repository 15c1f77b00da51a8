// A matrix held densely, or as the exact product M = L R of two factors (L: rows x k,
// R: k x cols, k small) that layers may share: a flat hat's units all read one direction r
// (U = slopes r^T) and write along the same few vectors (W = [y v] Q). The model's parameters
// are still M's rows x cols entries (def:model); the factors only store them.
// Invariants: factored() iff the right factor is set; M(i, j) = L.row(i) . R.col(j) exactly.
// Reads never densify; edit() densifies and unshares before it hands out the dense matrix.
#pragma once
#include <Eigen/Core>
#include <cstddef>
#include <memory>
#include <type_traits>
#include <utility>

#include "seqi/numbers/rational.hpp"

namespace seqi {

template <class S>
class FactoredMatrix {
 public:
  FactoredMatrix() : left_(std::make_shared<Mat<S>>()) {}
  // A dense matrix (implicit: wherever a matrix is expected, a dense one is one).
  template <class Derived>
  FactoredMatrix(const Eigen::MatrixBase<Derived>& dense)  // NOLINT(google-explicit-constructor)
      : left_(std::make_shared<Mat<S>>(dense)) {}
  FactoredMatrix(Mat<S>&& dense) : left_(std::make_shared<Mat<S>>(std::move(dense))) {}  // NOLINT(google-explicit-constructor)
  // L R; precondition left->cols() == right->rows() >= 1. A factor may be shared with other matrices.
  static FactoredMatrix product(std::shared_ptr<Mat<S>> left, std::shared_ptr<Mat<S>> right) {
    FactoredMatrix m;
    m.left_ = std::move(left);
    m.right_ = std::move(right);
    return m;
  }

  bool factored() const { return right_ != nullptr; }
  // L (the matrix itself when dense) and R (factored() only). A factor may be shared: matrices
  // whose factors have one address share that factor.
  const Mat<S>& left() const { return *left_; }
  const Mat<S>& right() const { return *right_; }

  Eigen::Index rows() const { return left_->rows(); }
  Eigen::Index cols() const { return factored() ? right_->cols() : left_->cols(); }
  Eigen::Index size() const { return rows() * cols(); }

  // Entries, rows and columns are values: const, so that assigning to one does not compile
  // (edit() is the way to change a matrix).
  const S operator()(Eigen::Index i, Eigen::Index j) const {  // NOLINT(readability-const-return-type)
    if (!factored()) return (*left_)(i, j);
    S s, scratch;
    product_entry(s, i, j, scratch);
    return s;
  }
  const Eigen::Matrix<S, 1, Eigen::Dynamic> row(Eigen::Index i) const {  // NOLINT(readability-const-return-type)
    if (!factored()) return left_->row(i);
    Eigen::Matrix<S, 1, Eigen::Dynamic> r(cols());
    S scratch;
    for (Eigen::Index j = 0; j < cols(); ++j) product_entry(r[j], i, j, scratch);
    return r;
  }
  const Vec<S> col(Eigen::Index j) const {  // NOLINT(readability-const-return-type)
    if (!factored()) return left_->col(j);
    Vec<S> c(rows());
    S scratch;
    for (Eigen::Index i = 0; i < rows(); ++i) product_entry(c[i], i, j, scratch);
    return c;
  }
  Mat<S> dense() const {
    if (!factored()) return *left_;
    Mat<S> m(rows(), cols());
    S scratch;
    for (Eigen::Index j = 0; j < cols(); ++j)
      for (Eigen::Index i = 0; i < rows(); ++i) product_entry(m(i, j), i, j, scratch);
    return m;
  }
  // Inner dimension k of L R (factored only).
  Eigen::Index inner() const { return left_->cols(); }
  // M x: row by row (each a dot product in index order) when dense, L (R x) when factored.
  Vec<S> apply(const Vec<S>& x) const {
    Vec<S> y(rows());
    if (!factored()) {
      for (Eigen::Index i = 0; i < rows(); ++i) y[i] = left_->row(i).dot(x.transpose());
      return y;
    }
    const Mat<S>& l = *left_;
    const Mat<S>& r = *right_;
    Vec<S> rx = Vec<S>::Zero(inner());
    S scratch;
    for (Eigen::Index k = 0; k < inner(); ++k)
      for (Eigen::Index j = 0; j < cols(); ++j) add_product(rx[k], r(k, j), x[j], scratch);
    for (Eigen::Index i = 0; i < rows(); ++i) {
      y[i] = S(0);
      for (Eigen::Index k = 0; k < inner(); ++k) add_product(y[i], l(i, k), rx[k], scratch);
    }
    return y;
  }

  // Sum of squares of M's entries: <L^T L, R R^T> (Frobenius) when factored.
  S squared_norm() const {
    if (!factored()) return left_->squaredNorm();
    const Mat<S>& l = *left_;
    const Mat<S>& r = *right_;
    S sum = S(0), gl, gr, scratch;
    for (Eigen::Index a = 0; a < inner(); ++a)
      for (Eigen::Index b = 0; b < inner(); ++b) {
        gl = S(0), gr = S(0);
        for (Eigen::Index i = 0; i < rows(); ++i) add_product(gl, l(i, a), l(i, b), scratch);
        for (Eigen::Index j = 0; j < cols(); ++j) add_product(gr, r(a, j), r(b, j), scratch);
        add_product(sum, gl, gr, scratch);
      }
    return sum;
  }

  // Scales row i (column j): scale(x) multiplies x in place by one fixed factor. A factored
  // matrix scales its left factor's row (right factor's column), unshared first.
  template <class F>
  void scale_row(Eigen::Index i, F&& scale) {
    Mat<S>& l = own(left_);
    for (Eigen::Index k = 0; k < l.cols(); ++k) scale(l(i, k));
  }
  template <class F>
  void scale_col(Eigen::Index j, F&& scale) {
    Mat<S>& r = factored() ? own(right_) : own(left_);
    for (Eigen::Index k = 0; k < r.rows(); ++k) scale(r(k, j));
  }

  // The dense matrix, to change (densifies a factored one; unshares). The reference is valid
  // until this matrix is next copied, assigned or edited.
  Mat<S>& edit() {
    if (factored()) {
      left_ = std::make_shared<Mat<S>>(dense());
      right_.reset();
    }
    return own(left_);
  }

  friend bool operator==(const FactoredMatrix& a, const FactoredMatrix& b) {
    return a.rows() == b.rows() && a.cols() == b.cols() && a.dense() == b.dense();
  }

 private:
  // out += a b, in place (GMP's mpq_mul and mpq_add for rationals: no temporaries); skips a zero.
  static void add_product(S& out, const S& a, const S& b, S& scratch) {
    if constexpr (std::is_same_v<S, Rational>) {
      if (mpq_sgn(a.backend().data()) == 0 || mpq_sgn(b.backend().data()) == 0) return;
      mpq_mul(scratch.backend().data(), a.backend().data(), b.backend().data());
      mpq_add(out.backend().data(), out.backend().data(), scratch.backend().data());
    } else {
      out += a * b;
    }
  }
  // out = L.row(i) . R.col(j).
  void product_entry(S& out, Eigen::Index i, Eigen::Index j, S& scratch) const {
    const Mat<S>& l = *left_;
    const Mat<S>& r = *right_;
    if constexpr (std::is_same_v<S, Rational>) {
      mpq_mul(out.backend().data(), l(i, 0).backend().data(), r(0, j).backend().data());
      for (Eigen::Index k = 1; k < l.cols(); ++k) add_product(out, l(i, k), r(k, j), scratch);
    } else {
      out = S(0);
      for (Eigen::Index k = 0; k < l.cols(); ++k) out += l(i, k) * r(k, j);
    }
  }

  // The factor, copied first when another matrix shares it.
  static Mat<S>& own(std::shared_ptr<Mat<S>>& f) {
    if (f.use_count() > 1) f = std::make_shared<Mat<S>>(*f);
    return *f;
  }

  std::shared_ptr<Mat<S>> left_, right_;
};

}  // namespace seqi
