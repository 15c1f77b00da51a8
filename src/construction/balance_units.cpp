#include "seqi/construction/balance_units.hpp"

#include "seqi/numbers/dyadic.hpp"

namespace seqi {

void balance_unit(FeedForward<Rational>& ff, Eigen::Index k, const Rational& in, const Rational& out) {
  if (in == 0 || out == 0) return;
  // s = 2^e with e the better of floor(l / 4) and floor(l / 4) + 1, l = floor(log2(out / in)):
  // s^4 within a factor 4 of out / in (lem:relu-rescaling).
  const long l = floor_log2(out / in);
  const long below = l >= 0 ? l / 4 : -((3 - l) / 4);
  const auto cost = [&](long e) { return pow2(2 * e) * in + pow2(-2 * e) * out; };
  const long e = cost(below + 1) < cost(below) ? below + 1 : below;
  if (e == 0 || cost(e) >= in + out) return;  // never larger
  ff.U.scale_row(k, [e](Rational& x) { scale_by_pow2(x, e); });
  scale_by_pow2(ff.b[k], e);
  ff.W.scale_col(k, [e](Rational& x) { scale_by_pow2(x, -e); });
}

void balance_hidden_units(FeedForward<Rational>& ff) {
  for (Eigen::Index k = 0; k < ff.U.rows(); ++k)
    balance_unit(ff, k, ff.U.row(k).squaredNorm() + ff.b[k] * ff.b[k], ff.W.col(k).squaredNorm());
}

}  // namespace seqi
