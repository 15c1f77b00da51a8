#include "seqi/certification/bisection.hpp"

#include <algorithm>
#include <utility>
#include <vector>

namespace seqi {
namespace {

struct Cell {
  SequenceEnclosure state;  // after the split block
  DistanceEnclosure distance;
};

// The coefficient (token, k) whose interval contributes most: width(c_k) * max_r |g_k[r]|.
std::optional<std::pair<std::size_t, std::size_t>> widest_coefficient(const SequenceEnclosure& s) {
  std::optional<std::pair<std::size_t, std::size_t>> best;
  Rational best_spread = 0;
  for (std::size_t i = 0; i < s.outputs.size(); ++i) {
    const AffineEnclosure& x = s.outputs[i];
    for (std::size_t k = 0; k < x.g.size(); ++k) {
      Rational g = 0;
      for (Eigen::Index r = 0; r < x.g[k].size(); ++r) g = std::max(g, Rational(abs(x.g[k][r])));
      const Rational spread = (x.c[k].upper() - x.c[k].lower()) * g;
      if (spread > best_spread) best_spread = spread, best = std::pair{i, k};
    }
  }
  return best;
}

Rational width_of(const DistanceEnclosure& e) { return e.hausdorff_sq_hi - e.hausdorff_sq_lo; }

}  // namespace

DistanceEnclosure union_of(const DistanceEnclosure& a, const DistanceEnclosure& b) {
  DistanceEnclosure u = a;
  u.hausdorff_sq_lo = std::min(a.hausdorff_sq_lo, b.hausdorff_sq_lo);
  u.hausdorff_sq_hi = std::max(a.hausdorff_sq_hi, b.hausdorff_sq_hi);
  u.loss_lo = std::min(a.loss_lo, b.loss_lo);
  u.loss_hi = std::max(a.loss_hi, b.loss_hi);
  if (width_of(b) > width_of(a)) u.widest_token = b.widest_token;
  // A witness holds for the union only when it holds in every cell: keep the weaker one's.
  if (b.hausdorff_sq_lo < a.hausdorff_sq_lo) u.witness = b.witness;
  return u;
}

std::optional<BisectionOutcome> bisect_sequence(const Transformer<Rational>& model, const SequencePair& pair,
                                                const Rational& tau, unsigned precision_bits,
                                                std::size_t branch_limit, const Rational& tolerance,
                                                std::size_t max_splits) {
  const Sequence input = pair.input.points();
  const SequenceEnclosure full = softmax_sequence_enclosure(model, input, tau, precision_bits, branch_limit);
  std::optional<std::size_t> first;
  for (const auto& b : full.inexact_since)
    if (b) first = first ? std::min(*first, *b) : *b;
  if (!first) return std::nullopt;  // an exact pass: bisection has nothing to refine
  const std::size_t L = model.blocks.size();

  SequenceEnclosure start;
  for (const auto& x : input) start.outputs.push_back(AffineEnclosure::exact(x));
  start.inexact_since.assign(input.size(), std::nullopt);
  advance_sequence_enclosure(model, start, 0, *first + 1, tau, precision_bits, branch_limit);

  const auto evaluate = [&](SequenceEnclosure state) {
    SequenceEnclosure rest = state;
    advance_sequence_enclosure(model, rest, *first + 1, L, tau, precision_bits, branch_limit);
    return Cell{std::move(state), distance_to_targets(rest.outputs, pair.output.points(), precision_bits)};
  };
  std::vector<Cell> cells{evaluate(start)};
  BisectionOutcome out;
  out.split_block = *first;
  const auto conclude = [&] {
    out.distance = cells.front().distance;
    for (std::size_t c = 1; c < cells.size(); ++c) out.distance = union_of(out.distance, cells[c].distance);
    out.verdict = verdict_of(out.distance, tolerance);
    out.cells = cells.size();
  };
  conclude();
  for (std::size_t split = 0; split < max_splits && out.verdict == SequenceVerdict::undecided; ++split) {
    auto widest = std::max_element(cells.begin(), cells.end(), [](const Cell& a, const Cell& b) {
      return width_of(a.distance) < width_of(b.distance);
    });
    const auto coefficient = widest_coefficient(widest->state);
    if (!coefficient) break;  // every coefficient is a point: nothing left to split
    const auto [i, k] = *coefficient;
    const Interval& ck = widest->state.outputs[i].c[k];
    const Rational lo = ck.lower(), hi = ck.upper(), mid = (lo + hi) / 2;
    SequenceEnclosure left = widest->state, right = widest->state;
    left.outputs[i].c[k] = Interval::hull(lo, mid, precision_bits);
    right.outputs[i].c[k] = Interval::hull(mid, hi, precision_bits);
    *widest = evaluate(std::move(left));
    cells.push_back(evaluate(std::move(right)));
    conclude();
  }
  if (out.verdict == SequenceVerdict::not_interpolating)
    out.detail = "above the tolerance in each of " + std::to_string(out.cells) +
                 " bisection cells; in the cell with the smallest bound: " + out.distance.witness;
  return out;
}

}  // namespace seqi
