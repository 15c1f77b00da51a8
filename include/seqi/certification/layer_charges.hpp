// Pending error charges of the sparse float-run bound (lem:float-run-sparse in
// proofs/float-sparse.tex). A layer L that leaves a token untouched adds (e_L, rho_L) to that
// token's error bounds when the token's reading t satisfies key_L < t (the charged side of
// L's breakpoints). A token settled last before layer `from` owes the sum over the recorded
// layers L in [from, to) with key_L < t. Merge-sort tree over layers: O(log^2 L) per query,
// O(L log L) memory, each node merged once, on first use.
#pragma once
#include <cstddef>
#include <vector>

namespace seqi {

struct Charge {
  double e = 0, rho = 0;
};

class LayerCharges {
 public:
  explicit LayerCharges(std::size_t layers);

  // Records layer `layer` (< layers); at most once per layer. A layer never recorded charges
  // nothing. Precondition: no query has yet covered `layer`.
  void record(std::size_t layer, double key, Charge charge);
  // Upper bound on the sum of the charges of the recorded layers L in [from, to) with
  // key_L < t. Requires UpwardRounding (sums are rounded up) and from <= to <= layers.
  Charge owed(std::size_t from, std::size_t to, double t);

 private:
  struct Node {
    bool built = false;
    std::vector<double> key;               // ascending
    std::vector<Charge> charge;            // the layers' charges, in key order
    std::vector<Charge> prefix;            // prefix[k] >= sum of charge[0..k) (rounded up)
  };
  void build(std::size_t n);

  std::size_t layers_ = 0, leaves_ = 1;
  std::vector<Node> nodes_;  // nodes_[1] the root; leaf of layer L at leaves_ + L
};

}  // namespace seqi
