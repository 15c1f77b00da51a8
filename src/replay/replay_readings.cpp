#include "replay/replay_readings.hpp"

#include "replay/replay_clones.hpp"
#include "replay/replay_lanes.hpp"

namespace seqi {
namespace {

using namespace replay_lanes;

// The order of fixed_order_dot for T columns side by side: lane j of column c in acc[c][j].
template <class F, std::size_t T>
SEQI_REPLAY_CLONES void dots(const F* __restrict r, const F* const* __restrict x, std::size_t d, F* __restrict out) {
  constexpr std::size_t P = kPacket<F>, L = kLanes<F>;
  static_assert(sizeof(Lanes<F>) == L * sizeof(F));
  const std::size_t whole_packets = d / P * P, whole_lanes = d / L * L;
  if (whole_packets < L) {  // fewer than L terms
    for (std::size_t c = 0; c < T; ++c) {
      F s = r[0] * x[c][0];
      std::size_t i = 1;
      if (whole_packets > 0) {
        F a[P];
        for (std::size_t j = 0; j < P; ++j) a[j] = r[j] * x[c][j];
        s = reduce_packet<F>(a);
        i = P;
      }
      for (; i < d; ++i) s = s + r[i] * x[c][i];
      out[c] = s;
    }
    return;
  }
  Lanes<F> acc[T];
  {
    Lanes<F> rv, xv;
    load_lanes(rv, r);
#pragma GCC unroll 8
    for (std::size_t c = 0; c < T; ++c) {
      load_lanes(xv, x[c]);
      acc[c] = rv * xv;
    }
  }
  for (std::size_t i = L; i < whole_lanes; i += L) {
    Lanes<F> rv, xv;
    load_lanes(rv, r + i);
#pragma GCC unroll 8
    for (std::size_t c = 0; c < T; ++c) {
      load_lanes(xv, x[c] + i);
      acc[c] = acc[c] + rv * xv;
    }
  }
#pragma GCC unroll 8
  for (std::size_t c = 0; c < T; ++c) out[c] = finish_lane_dot<F>(acc[c], r, x[c], d);
}

}  // namespace

template <class F>
F fixed_order_dot(const F* r, const F* x, std::size_t d) {
  F out;
  dots<F, 1>(r, &x, d, &out);
  return out;
}

template <class F>
void fixed_order_readings(const F* r, const F* X, std::size_t d, const std::uint32_t* tokens, std::size_t count,
                          F* t) {
  constexpr std::size_t T = 4;  // columns side by side: four independent chains per lane
  std::size_t i = 0;
  for (; i + T <= count; i += T) {
    const F* x[T];
    F out[T];
    for (std::size_t c = 0; c < T; ++c) x[c] = X + tokens[i + c] * d;
    dots<F, T>(r, x, d, out);
    for (std::size_t c = 0; c < T; ++c) t[tokens[i + c]] = out[c];
  }
  for (; i < count; ++i) t[tokens[i]] = fixed_order_dot(r, X + tokens[i] * d, d);
}

template float fixed_order_dot(const float*, const float*, std::size_t);
template double fixed_order_dot(const double*, const double*, std::size_t);
template void fixed_order_readings(const float*, const float*, std::size_t, const std::uint32_t*, std::size_t, float*);
template void fixed_order_readings(const double*, const double*, std::size_t, const std::uint32_t*, std::size_t,
                                   double*);

}  // namespace seqi
