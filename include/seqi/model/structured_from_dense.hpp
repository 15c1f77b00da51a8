// Exact factorisations between dense matrices and StructuredMatrix (alpha*I + sum p q^T).
#pragma once
#include "seqi/model/structured_matrix.hpp"

namespace seqi {

// The dense d x d matrix alpha*I + sum p q^T (exact).
Mat<Rational> dense_of(const StructuredMatrix<Rational>& s, int d);

// An exact rank factorisation M = sum_{k<r} p_k q_k^T with r = rank(M): q_k^T are the nonzero
// rows of the reduced row echelon form of M, p_k the pivot columns of M. O(rows * cols * r).
std::vector<RankOneTerm<Rational>> rank_factorization(const Mat<Rational>& M);

// A structured form of the square matrix M, equal to M exactly: alpha = 0 with a rank
// factorisation of M, or alpha = the most frequent diagonal entry with a rank factorisation
// of M - alpha*I, whichever has fewer rank-one terms (alpha = 0 on a tie).
StructuredMatrix<Rational> structured_from_dense(const Mat<Rational>& M);

}  // namespace seqi
