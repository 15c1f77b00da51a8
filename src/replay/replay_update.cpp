#include "replay/replay_update.hpp"

#include <algorithm>

#include "replay/replay_clones.hpp"
#include "replay/replay_lanes.hpp"
#include "replay/replay_readings.hpp"

namespace seqi {
namespace {

using namespace replay_lanes;

// Up to four active units' updates W_u h_u added to one token in one pass over its coordinates:
// x_c <- fl(...fl(fl(x_c + fl(W_0c h_0)) + fl(W_1c h_1))...) in unit order, the same floats as one
// pass per unit (every operation elementwise), with x loaded and stored once.
template <int n, class F>
inline __attribute__((always_inline)) void add_units(F* __restrict x, const F* const* w, const F* h, std::size_t from,
                                                     std::size_t d) {
  const F* __restrict w0 = w[0];
  const F* __restrict w1 = w[n > 1 ? 1 : 0];
  const F* __restrict w2 = w[n > 2 ? 2 : 0];
  const F* __restrict w3 = w[n > 3 ? 3 : 0];
  const F h0 = h[0], h1 = h[n > 1 ? 1 : 0], h2 = h[n > 2 ? 2 : 0], h3 = h[n > 3 ? 3 : 0];
  for (std::size_t c = from; c < d; ++c) {
    F v = x[c] + w0[c] * h0;
    if constexpr (n > 1) v += w1[c] * h1;
    if constexpr (n > 2) v += w2[c] * h2;
    if constexpr (n > 3) v += w3[c] * h3;
    x[c] = v;
  }
}

// add_units on the L coordinates from c as one lane vector, returned in v (stored to x too).
template <int n, class F>
inline __attribute__((always_inline)) void add_units_lanes(Lanes<F>& v, F* x, const F* const* w, const F* h,
                                                           std::size_t c) {
  Lanes<F> wv;
  load_lanes(v, x + c);
  load_lanes(wv, w[0] + c);
  v = v + wv * h[0];
  if constexpr (n > 1) load_lanes(wv, w[1] + c), v = v + wv * h[1];
  if constexpr (n > 2) load_lanes(wv, w[2] + c), v = v + wv * h[2];
  if constexpr (n > 3) load_lanes(wv, w[3] + c), v = v + wv * h[3];
  store_lanes(x + c, v);
}

// add_units, then fixed_order_dot(r, x, d) of the updated token, in one pass; precondition d >= L
// (the stated order's lane sums then run over the whole blocks of L coordinates).
template <int n, class F>
inline __attribute__((always_inline)) F add_units_and_read(F* __restrict x, const F* const* w, const F* h,
                                                           std::size_t d, const F* __restrict r) {
  constexpr std::size_t L = kLanes<F>;
  const std::size_t whole_lanes = d / L * L;
  Lanes<F> v, rv, acc;
  add_units_lanes<n>(v, x, w, h, 0);
  load_lanes(rv, r);
  acc = rv * v;
  for (std::size_t c = L; c < whole_lanes; c += L) {
    add_units_lanes<n>(v, x, w, h, c);
    load_lanes(rv, r + c);
    acc = acc + rv * v;
  }
  add_units<n>(x, w, h, whole_lanes, d);
  return finish_lane_dot<F>(acc, r, x, d);
}

// The same for two tokens side by side (same unit count n): two independent chains of lane sums.
template <int n, class F>
inline __attribute__((always_inline)) void add_units_and_read_two(F* __restrict x, const F* const* w, const F* h,
                                                                  F* __restrict y, const F* const* wy, const F* hy,
                                                                  std::size_t d, const F* __restrict r, F& tx,
                                                                  F& ty) {
  constexpr std::size_t L = kLanes<F>;
  const std::size_t whole_lanes = d / L * L;
  Lanes<F> v, u, rv, acc, accy;
  add_units_lanes<n>(v, x, w, h, 0);
  add_units_lanes<n>(u, y, wy, hy, 0);
  load_lanes(rv, r);
  acc = rv * v;
  accy = rv * u;
  for (std::size_t c = L; c < whole_lanes; c += L) {
    add_units_lanes<n>(v, x, w, h, c);
    add_units_lanes<n>(u, y, wy, hy, c);
    load_lanes(rv, r + c);
    acc = acc + rv * v;
    accy = accy + rv * u;
  }
  add_units<n>(x, w, h, whole_lanes, d);
  add_units<n>(y, wy, hy, whole_lanes, d);
  tx = finish_lane_dot<F>(acc, r, x, d);
  ty = finish_lane_dot<F>(accy, r, y, d);
}

// A token's last active units (up to four), not yet added.
template <class F>
struct HeldUnits {
  const F* columns[4] = {};
  F h[4] = {};
  int held = 0;
};

// One token's layer: x <- fl(eta x) when eta != 1, and every active unit but the last held ones
// (1 to 4 of them, or 0 when no unit is active) added; those are left in `units`.
template <class F>
inline __attribute__((always_inline)) void start_token(F* __restrict x, std::size_t d, F t, const F* slope,
                                                       const F* b, const F* W, std::size_t w, F eta,
                                                       HeldUnits<F>& units) {
  if (eta != F(1))
    for (std::size_t c = 0; c < d; ++c) x[c] *= eta;
  units.held = 0;
  for (std::size_t u = 0; u < w; ++u) {
    const F value = std::max(slope[u] * t + b[u], F(0));
    if (value == F(0)) continue;
    if (units.held == 4) {  // a fifth active unit: the four held ones first
      add_units<4>(x, units.columns, units.h, 0, d);
      units.held = 0;
    }
    units.columns[units.held] = W + u * d;
    units.h[units.held] = value;
    ++units.held;
  }
}

// The held units added, without reading the token.
template <class F>
inline __attribute__((always_inline)) void add_held(F* x, const HeldUnits<F>& units, std::size_t d) {
  switch (units.held) {
    case 1: add_units<1>(x, units.columns, units.h, 0, d); break;
    case 2: add_units<2>(x, units.columns, units.h, 0, d); break;
    case 3: add_units<3>(x, units.columns, units.h, 0, d); break;
    case 4: add_units<4>(x, units.columns, units.h, 0, d); break;
    default: break;
  }
}

// The held units (at least one) added and the token read in the same pass (fused: d >= L).
template <class F>
inline __attribute__((always_inline)) void read_held(F* x, const HeldUnits<F>& units, std::size_t d, const F* r, F& t) {
  switch (units.held) {
    case 1: t = add_units_and_read<1>(x, units.columns, units.h, d, r); break;
    case 2: t = add_units_and_read<2>(x, units.columns, units.h, d, r); break;
    case 3: t = add_units_and_read<3>(x, units.columns, units.h, d, r); break;
    default: t = add_units_and_read<4>(x, units.columns, units.h, d, r); break;
  }
}

// A started token finished on its own: its held units added, then read when reread is set.
template <class F>
inline __attribute__((always_inline)) void finish_token(F* x, const HeldUnits<F>& units, std::size_t d,
                                                        const F* reread, bool fused, F& t) {
  if (fused && units.held > 0) return read_held(x, units, d, reread, t);
  add_held(x, units, d);
  if (reread) t = fixed_order_dot(reread, x, d);
}

}  // namespace

// One call per layer, so the clone is chosen once for all listed tokens. With reread, two
// consecutive listed tokens with the same number of held units are updated and read side by side.
template <class F>
SEQI_REPLAY_CLONES void update_listed(F* X, std::size_t d, const std::uint32_t* listed, std::size_t count, F* t,
                                      const F* slope, const F* b, const F* W, std::size_t w, F eta,
                                      const F* reread) {
  const bool fused = reread && d >= kLanes<F>;
  std::size_t q = 0;
  while (q < count) {
    HeldUnits<F> one, two;
    const std::size_t k = listed[q];
    F* x = X + k * d;
    start_token(x, d, t[k], slope, b, W, w, eta, one);
    ++q;
    if (!fused || one.held == 0) {
      finish_token(x, one, d, reread, fused, t[k]);
      continue;
    }
    if (q < count) {  // the next token too: side by side when its held count is the same
      const std::size_t k2 = listed[q];
      F* y = X + k2 * d;
      start_token(y, d, t[k2], slope, b, W, w, eta, two);
      if (two.held == one.held) {
        switch (one.held) {
          case 1: add_units_and_read_two<1>(x, one.columns, one.h, y, two.columns, two.h, d, reread, t[k], t[k2]); break;
          case 2: add_units_and_read_two<2>(x, one.columns, one.h, y, two.columns, two.h, d, reread, t[k], t[k2]); break;
          case 3: add_units_and_read_two<3>(x, one.columns, one.h, y, two.columns, two.h, d, reread, t[k], t[k2]); break;
          default: add_units_and_read_two<4>(x, one.columns, one.h, y, two.columns, two.h, d, reread, t[k], t[k2]); break;
        }
        ++q;
        continue;
      }
      finish_token(y, two, d, reread, fused, t[k2]);  // on its own
      ++q;
    }
    read_held(x, one, d, reread, t[k]);
  }
}

template void update_listed(float*, std::size_t, const std::uint32_t*, std::size_t, float*, const float*, const float*,
                            const float*, std::size_t, float, const float*);
template void update_listed(double*, std::size_t, const std::uint32_t*, std::size_t, double*, const double*,
                            const double*, const double*, std::size_t, double, const double*);

}  // namespace seqi
