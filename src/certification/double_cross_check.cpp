#include "seqi/certification/double_cross_check.hpp"

namespace seqi {

DoubleCrossCheck double_cross_check(const Transformer<Rational>& model, const Dataset& data, std::optional<double> tau,
                                    std::optional<std::size_t> collapse_block, const std::vector<std::size_t>& attends,
                                    unsigned threads) {
  return {float_run<double>(model, data, tau, collapse_block, attends, 1e-6, threads),
          float_run<float>(model, data, tau, collapse_block, attends, 1e-3, threads)};
}

}  // namespace seqi
