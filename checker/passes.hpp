// Pieces shared by the hardmax and softmax passes.
#pragma once
#include "check.hpp"

namespace check {

// The exact hardmax self-attention of block b, in place.
void hardmax_attention(const Block& b, std::vector<Vec>& X);

// The distinct rows of U over the whole model, numbered: the hats of many layers read a token
// along few directions, so a token's reading along a row is computed once while it is unchanged.
struct RowIds {
  explicit RowIds(const Model& m);
  std::vector<std::vector<std::size_t>> id;  // id[block][unit]
  std::size_t count = 0;
};

// A token's readings U_row . x, valid while the token is unchanged (clear() on every change).
struct Readings {
  std::vector<Q> value;
  std::vector<bool> known;
  void clear() { known.assign(known.size(), false); }
};

// One feed-forward layer x <- eta x + W relu(U x + b).
struct FeedForwardPlan {
  FeedForwardPlan(const Block& b, const std::vector<std::size_t>& row_ids);
  std::vector<Q> pre_activations(const Vec& x, Readings& cache) const;  // U x + b
  void apply(Vec& x, Readings& cache) const;
  const Block& block;
  const std::vector<std::size_t>& row_id;
  Vec minus_b;  // unit u is active iff U_u . x > -b_u
  // Per distinct row of U: a unit reading it, and the least and largest -b_u over its units:
  // none of them is active iff the reading is <= the least, all iff it is > the largest.
  struct Row {
    std::size_t unit;
    Q least, most;
  };
  std::vector<Row> rows;
  // eta = 1, sum_u W_u U_u^T = 0 and sum_u W_u b_u = 0 (checked exactly): with every unit
  // active the layer is the identity (a hat to the right of its last breakpoint).
  bool identity_when_all_active = false;
};

Readings empty_readings(const RowIds& ids);
std::vector<FeedForwardPlan> feed_forward_plans(const Model& m, const RowIds& ids);
Q dot(const Vec& a, const Vec& b);

}  // namespace check
