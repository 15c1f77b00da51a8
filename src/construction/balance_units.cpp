#include "seqi/construction/balance_units.hpp"

#include "seqi/numbers/dyadic.hpp"

namespace seqi {

void balance_unit(FeedForward<Rational>& ff, Eigen::Index k, const Rational& in, const Rational& out) {
  if (in == 0 || out == 0) return;
  const long e = floor_log2(out / in) / 4;  // s = 2^e, s^4 ~ out / in (lem:relu-rescaling)
  if (e == 0) return;
  const Rational s = pow2(e);
  if (s * s * in + out / (s * s) >= in + out) return;  // never larger
  for (Eigen::Index c = 0; c < ff.U.cols(); ++c) scale_by_pow2(ff.U(k, c), e);
  scale_by_pow2(ff.b[k], e);
  for (Eigen::Index c = 0; c < ff.W.rows(); ++c) scale_by_pow2(ff.W(c, k), -e);
}

void balance_hidden_units(FeedForward<Rational>& ff) {
  for (Eigen::Index k = 0; k < ff.U.rows(); ++k)
    balance_unit(ff, k, ff.U.row(k).squaredNorm() + ff.b[k] * ff.b[k], ff.W.col(k).squaredNorm());
}

}  // namespace seqi
