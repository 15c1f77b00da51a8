#include "seqi/construction/balance_units.hpp"

#include "seqi/core/parallel.hpp"
#include "seqi/numbers/dyadic.hpp"

namespace seqi {

void balance_hidden_units(FeedForward<Rational>& ff) {
  for (Eigen::Index k = 0; k < ff.U.rows(); ++k) {
    const Rational in = ff.U.row(k).squaredNorm() + ff.b[k] * ff.b[k];
    const Rational out = ff.W.col(k).squaredNorm();
    if (in == 0 || out == 0) continue;
    const Rational s = pow2(floor_log2(out / in) / 4);  // s^4 ~ out / in (lem:relu-rescaling)
    if (s == 1 || s * s * in + out / (s * s) >= in + out) continue;  // never larger
    ff.U.row(k) *= s;
    ff.b[k] *= s;
    ff.W.col(k) /= s;
  }
}

void balance_hidden_units(Transformer<Rational>& model, unsigned threads) {
  for_each_index(model.blocks.size(), threads, [&](std::size_t b) { balance_hidden_units(model.blocks[b].ff); });
}

}  // namespace seqi
