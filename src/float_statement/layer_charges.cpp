#include "seqi/float_statement/layer_charges.hpp"
#include "seqi/numbers/upward.hpp"

#include <algorithm>
#include <stdexcept>

namespace seqi {

LayerCharges::LayerCharges(std::size_t layers) : layers_(layers) {
  while (leaves_ < layers) leaves_ *= 2;
  nodes_.resize(2 * leaves_);
}

void LayerCharges::record(std::size_t layer, double key, AffineCharge charge) {
  if (layer >= layers_) throw std::out_of_range("LayerCharges::record: layer out of range");
  Node& leaf = nodes_[leaves_ + layer];
  if (!leaf.key.empty()) throw std::logic_error("LayerCharges::record: layer recorded twice");
  leaf.key = {key};
  leaf.charge = {charge};
}

// Merges the children's entries by key; prefix sums under the caller's upward rounding
// (a lower bound as -(upward sum of negated terms)).
void LayerCharges::build(std::size_t n) {
  Node& node = nodes_[n];
  if (node.built) return;
  node.built = true;
  if (n < leaves_) {
    build(2 * n);
    build(2 * n + 1);
    const Node &a = nodes_[2 * n], &b = nodes_[2 * n + 1];
    std::size_t i = 0, j = 0;
    while (i < a.key.size() || j < b.key.size()) {
      const bool from_a = j == b.key.size() || (i < a.key.size() && a.key[i] <= b.key[j]);
      const Node& s = from_a ? a : b;
      std::size_t& k = from_a ? i : j;
      node.key.push_back(s.key[k]);
      node.charge.push_back(s.charge[k]);
      ++k;
    }
  }
  node.prefix.assign(1, Sums{});
  for (std::size_t k = 0; k < node.key.size(); ++k) {
    const AffineCharge& c = node.charge[k];
    const Sums& p = node.prefix.back();
    const double key = node.key[k];
    node.prefix.push_back({{p.A.e + c.alpha.e, p.A.rho + c.alpha.rho},
                           {p.B_up.e + c.beta.e, p.B_up.rho + c.beta.rho},
                           {-((-p.B_lo.e) + (-c.beta.e)), -((-p.B_lo.rho) + (-c.beta.rho))},
                           {p.C.e + (-c.beta.e) * key, p.C.rho + (-c.beta.rho) * key},
                           {p.G.e + c.gamma.e, p.G.rho + c.gamma.rho}});
  }
}

Charge LayerCharges::owed(std::size_t from, std::size_t to, double t, double x) {
  expect_upward_rounding("LayerCharges::owed");
  if (from > to || to > layers_) throw std::out_of_range("LayerCharges::owed: bad layer range");
  Charge sum;
  auto add = [&](std::size_t n) {
    build(n);
    const Node& node = nodes_[n];
    const auto k = static_cast<std::size_t>(std::lower_bound(node.key.begin(), node.key.end(), t) - node.key.begin());
    if (k == 0) return;
    const Sums& p = node.prefix[k];
    const Charge& B = t >= 0 ? p.B_up : p.B_lo;
    sum.e = sum.e + (p.A.e + t * B.e + p.C.e + x * p.G.e);
    sum.rho = sum.rho + (p.A.rho + t * B.rho + p.C.rho + x * p.G.rho);
  };
  for (std::size_t l = from + leaves_, r = to + leaves_; l < r; l /= 2, r /= 2) {
    if (l & 1) add(l++);
    if (r & 1) add(--r);
  }
  return sum;
}

}  // namespace seqi
