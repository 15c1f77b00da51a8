// lem:softmax-enclosure: the collapse layer (rho, alpha I, v a^T) under softmax at tau, token by
// token, as an enclosure rho x_i + c v with c in [z_i - r_j, z_i + r_j]: z_i = a . x_{attends[i]}
// is the value at the token's leader (lem:P) and r_j the O(1) bound of its sequence. A sequence
// without such a bound is enclosed token by token from its softmax weights
// (CarriedForward::apply_attention_to). The certification and the float64 bound's exact
// reference (lem:float-run) enclose the collapse with the same plan.
#pragma once
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "seqi/forward/carried_forward.hpp"

namespace seqi {

struct CollapseEnclosures {
  std::size_t block = 0;                        // the collapse block (0-based)
  Rational tau;                                 // the temperature checked
  std::shared_ptr<const Point> v;               // the direction of every enclosure
  Point a;                                      // z_i = a . x_{attends[i]}
  std::vector<std::size_t> attends;             // per token: its leader (global index)
  std::vector<std::optional<Rational>> radius;  // per sequence: r_j, or nullopt (token by token)
};

// z_i = a . x_{attends[i]} for every token of `carried`, whose tokens are all exact (the state
// entering the collapse); computed on `threads` threads.
std::vector<Rational> leader_values(const CarriedForward& carried, const CollapseEnclosures& plan, unsigned threads);

// Replaces the exact tokens of `carried` (the state entering the collapse) by the collapse
// layer's output enclosures under `plan`; z: leader_values of that state. Returns the first
// failure of a sequence enclosed token by token (nullopt when there is none).
std::optional<std::string> enclose_collapse(CarriedForward& carried, const SelfAttention<Rational>& sa,
                                            const CollapseEnclosures& plan, const std::vector<Rational>& z);

}  // namespace seqi
