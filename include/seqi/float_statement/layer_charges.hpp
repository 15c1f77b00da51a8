// Pending error charges of the sparse float-run bound (lem:float-run-sparse in
// proofs/float-sparse.tex). A layer L that leaves a token untouched charges it
// alpha_L + beta_L (t - key_L) + gamma_L x (each part >= 0, for e and for rho; x >= 0 the
// token's magnitude) when the token's reading t satisfies key_L < t (the charged side of L's
// breakpoints). A token settled last before layer
// `from` owes the sum over the recorded layers L in [from, to) with key_L < t. Merge-sort tree
// over layers: O(log^2 L) per query, O(L log L) memory, each node merged once, on first use.
#pragma once
#include <cstddef>
#include <vector>

namespace seqi {

struct Charge {
  double e = 0, rho = 0;
};

// What one layer charges a token of magnitude x reading t > key: alpha + beta (t - key) + gamma x.
struct AffineCharge {
  Charge alpha, beta, gamma;  // all >= 0
};

class LayerCharges {
 public:
  explicit LayerCharges(std::size_t layers);

  // Records layer `layer` (< layers); at most once per layer. A layer never recorded charges
  // nothing. Precondition: no query has yet covered `layer`.
  void record(std::size_t layer, double key, AffineCharge charge);
  // Upper bound on the sum of the charges to a token of magnitude x >= 0 of the recorded layers
  // L in [from, to) with key_L < t. Requires UpwardRounding (every sum and product rounded up)
  // and from <= to <= layers.
  Charge owed(std::size_t from, std::size_t to, double t, double x);

 private:
  // Sums over a node's first k entries (by key): A >= sum alpha, B_up >= sum beta >= B_lo,
  // C >= sum (-beta key), G >= sum gamma; then the charges summed are <= A + t B + C + x G with
  // B = B_up for t >= 0 and B_lo for t < 0.
  struct Sums {
    Charge A, B_up, B_lo, C, G;
  };
  struct Node {
    bool built = false;
    std::vector<double> key;             // ascending
    std::vector<AffineCharge> charge;    // the layers' charges, in key order
    std::vector<Sums> prefix;            // prefix[k] covers entries [0, k)
  };
  void build(std::size_t n);

  std::size_t layers_ = 0, leaves_ = 1;
  std::vector<Node> nodes_;  // nodes_[1] the root; leaf of layer L at leaves_ + L
};

}  // namespace seqi
