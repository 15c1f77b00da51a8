#include "seqi/model/structured_from_dense.hpp"

#include <map>

namespace seqi {

Mat<Rational> dense_of(const StructuredMatrix<Rational>& s, int d) {
  Mat<Rational> M = Mat<Rational>::Identity(d, d) * s.alpha;
  for (const auto& t : s.terms) M += t.p * t.q.transpose();
  return M;
}

std::vector<RankOneTerm<Rational>> rank_factorization(const Mat<Rational>& M) {
  Mat<Rational> R = M;  // becomes the reduced row echelon form
  std::vector<Eigen::Index> pivots;
  Eigen::Index row = 0;
  for (Eigen::Index col = 0; col < R.cols() && row < R.rows(); ++col) {
    Eigen::Index pr = row;
    while (pr < R.rows() && R(pr, col) == 0) ++pr;
    if (pr == R.rows()) continue;
    R.row(pr).swap(R.row(row));
    const Rational inv = 1 / R(row, col);
    R.row(row) *= inv;
    for (Eigen::Index r = 0; r < R.rows(); ++r)
      if (r != row && R(r, col) != 0) R.row(r) -= R.row(row) * Rational(R(r, col));
    pivots.push_back(col);
    ++row;
  }
  // M = M[:, pivots] * RREF[0:r, :] (lem:rank-factorization).
  std::vector<RankOneTerm<Rational>> terms;
  for (std::size_t k = 0; k < pivots.size(); ++k)
    terms.push_back({M.col(pivots[k]), R.row(static_cast<Eigen::Index>(k)).transpose()});
  return terms;
}

StructuredMatrix<Rational> structured_from_dense(const Mat<Rational>& M) {
  StructuredMatrix<Rational> best{Rational(0), rank_factorization(M)};
  std::map<Rational, int> count;
  for (Eigen::Index i = 0; i < M.rows(); ++i) ++count[M(i, i)];
  Rational mode(0);
  int most = 0;
  for (const auto& [v, c] : count)
    if (c > most) mode = v, most = c;
  if (mode != 0) {
    auto shifted = rank_factorization(M - Mat<Rational>::Identity(M.rows(), M.cols()) * mode);
    if (shifted.size() < best.terms.size()) best = {mode, std::move(shifted)};
  }
  return best;
}

}  // namespace seqi
