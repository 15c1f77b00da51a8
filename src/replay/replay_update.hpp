// The float replays' update of one one-direction feed-forward layer on listed tokens
// (lem:float-run's model: every operation rounded, sums in one stated order), optionally with
// each updated token's reading for the next layer computed in the same pass.
#pragma once
#include <cstddef>
#include <cstdint>

namespace seqi {

// Tokens are columns of d contiguous coordinates at X; t[k] is token k's reading fl(r . x_k) for
// the layer's direction r. For each listed token k: x <- fl(eta x) coordinatewise when eta != 1,
// then for the units u < w in order with h_u = max(fl(fl(slope_u t_k) + b_u), 0) != 0 (NaN
// included): x_c <- fl(x_c + fl(W_uc h_u)) (W: the d x w columns W_u, contiguous).
// reread (the direction of the next layer, or null): t[k] <- fixed_order_dot(reread, x_k, d) after
// the update, computed while the token's coordinates are loaded; the same floats as reading the
// updated token afterwards.
template <class F>
void update_listed(F* X, std::size_t d, const std::uint32_t* listed, std::size_t count, F* t, const F* slope,
                   const F* b, const F* W, std::size_t w, F eta, const F* reread);

}  // namespace seqi
