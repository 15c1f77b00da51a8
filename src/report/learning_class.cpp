#include "seqi/report/learning_class.hpp"

namespace seqi {

std::string learning_class(const Certificate& cert) {
  const Counts& c = cert.counts;
  std::string rule = cert.setting == Setting::softmax && cert.softmax
                         ? "softmax attention at tau = " + to_string(cert.softmax->tau_checked)
                         : std::string(cert.setting == Setting::softmax ? "softmax attention" : "hardmax attention");
  return std::to_string(c.blocks) + " blocks, feed-forward width " + std::to_string(c.width) +
         ", stored ranks of A and V at most " + std::to_string(c.max_rank_A) + " and " + std::to_string(c.max_rank_V) +
         ", " + rule + " (a student with more blocks, units or ranks contains this one: its zero units cost " +
         "nothing, each extra identity block 2)";
}

}  // namespace seqi
