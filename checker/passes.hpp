// Pieces shared by the hardmax and softmax passes.
#pragma once
#include <map>

#include "check.hpp"

namespace check {

// The exact hardmax self-attention of block b, in place.
void hardmax_attention(const Block& b, std::vector<Vec>& X);

// The reading directions of the rows of U over the whole model, numbered: a row is a positive
// multiple scale * dir of a direction dir (its first nonzero entry 1 or -1). The hats of many
// layers read a token along few directions, so a token's reading along a direction is
// computed once while the token is unchanged.
struct RowIds {
  explicit RowIds(const Model& m);
  std::vector<std::vector<std::size_t>> id;  // id[block][unit]
  std::vector<std::vector<Q>> scale;         // U_u = scale[block][unit] * dirs[id[block][unit]]
  std::vector<Vec> dirs;
};

// A token's readings dirs[r] . x, valid while the token is unchanged (clear() on every change).
struct Readings {
  std::vector<Q> value;
  std::vector<bool> known;
  void clear() { known.assign(known.size(), false); }
};
const Q& reading(const RowIds& ids, std::size_t r, const Vec& x, Readings& cache);

// One feed-forward layer x <- eta x + W relu(U x + b).
struct FeedForwardPlan {
  FeedForwardPlan(const Block& b, const RowIds& ids, std::size_t k);
  std::vector<Q> pre_activations(const Vec& x, Readings& cache) const;  // U x + b
  void apply(Vec& x, Readings& cache) const;
  const Block& block;
  const RowIds& ids;
  std::size_t k;  // the block's index
  // Per direction read: the least and largest threshold -b_u / scale_u of its units (unit u is
  // active iff the reading exceeds its threshold): none of them is active iff the reading is
  // <= the least, all iff it is > the largest.
  struct Row {
    std::size_t dir;
    Q least, most;
  };
  std::vector<Row> rows;
  // eta = 1, sum_u W_u U_u^T = 0 and sum_u W_u b_u = 0 (checked exactly): with every unit
  // active the layer is the identity (a hat to the right of its last breakpoint).
  bool identity_when_all_active = false;
};

// A run of consecutive blocks [begin, end) whose attention is the identity and whose
// feed-forward layers have eta = 1 and read one direction `dir`: block k leaves a token
// unchanged unless its reading meets the hat (least_k, most_k] (unbounded above when not
// identity_when_all_active). The hats are pairwise disjoint (checked exactly), so the next
// block that can change a token is found by a binary search, not a walk over every block.
struct Run {
  struct Hat {
    Q lo, hi;
    bool unbounded;
    std::size_t block;
  };
  std::size_t begin = 0, end = 0, dir = 0;
  std::vector<Hat> hats;  // sorted, pairwise disjoint, none empty
  // The first block >= from whose hat meets the readings [rmin, rmax]; `end` when none.
  std::size_t next(const Q& rmin, const Q& rmax, std::size_t from) const;
};
// The runs of at least two blocks, by first block.
std::map<std::size_t, Run> find_runs(const Model& m, const std::vector<FeedForwardPlan>& ff);

Readings empty_readings(const RowIds& ids);
std::vector<FeedForwardPlan> feed_forward_plans(const Model& m, const RowIds& ids);
Q dot(const Vec& a, const Vec& b);
// The scores <A x_i, x_l> of every pair of tokens, exact; with A = alpha I as integer dot
// products over the tokens' common denominator.
std::vector<std::vector<Q>> all_scores(const LowRank& A, const std::vector<Vec>& X);

}  // namespace check
