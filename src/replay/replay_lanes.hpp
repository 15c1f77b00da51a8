// The lanes of the replays' fixed summation order (replay_readings.hpp states the order): L = 2P
// lanes of F in one GCC vector (32 bytes: one AVX2 register, two SSE2 ones), P = 2 (double) or
// 4 (float). Lanewise operations round each lane on its own, as the scalar ones would, so a
// clone for any instruction set computes the same floats. For the replays' sources only
// (compiled -ffp-contract=off); every function is inlined into its caller's clone.
#pragma once
#include <cstddef>
#include <cstring>

namespace seqi::replay_lanes {

template <class F>
inline constexpr std::size_t kPacket = sizeof(F) == 8 ? 2 : 4;
template <class F>
inline constexpr std::size_t kLanes = 2 * kPacket<F>;

template <class F>
struct LaneVector;
template <>
struct LaneVector<double> {
  typedef double type __attribute__((vector_size(32)));
};
template <>
struct LaneVector<float> {
  typedef float type __attribute__((vector_size(32)));
};
template <class F>
using Lanes = typename LaneVector<F>::type;

// Unaligned load and store (through references: a 32-byte vector passed or returned by value
// would change the default clone's ABI).
template <class F>
inline __attribute__((always_inline)) void load_lanes(Lanes<F>& v, const F* p) {
  std::memcpy(&v, p, sizeof v);
}
template <class F>
inline __attribute__((always_inline)) void store_lanes(F* p, const Lanes<F>& v) {
  std::memcpy(p, &v, sizeof v);
}

// reduce(A) of the stated order: A_0 + A_1 (P = 2), (A_0 + A_2) + (A_1 + A_3) (P = 4).
template <class F>
inline __attribute__((always_inline)) F reduce_packet(const F* a) {
  if constexpr (kPacket<F> == 2) return a[0] + a[1];
  else return (a[0] + a[2]) + (a[1] + a[3]);
}

// The end of the stated order for d >= L terms, from the lane sums acc_j over the whole blocks
// of L terms: A_j = fl(acc_j + acc_{j+P}), plus p_i of one further whole packet, reduce(A), then
// the remaining terms in index order.
template <class F>
inline __attribute__((always_inline)) F finish_lane_dot(const Lanes<F>& acc, const F* r, const F* x, std::size_t d) {
  constexpr std::size_t P = kPacket<F>, L = kLanes<F>;
  const std::size_t whole_packets = d / P * P, whole_lanes = d / L * L;
  F a[P];
  for (std::size_t j = 0; j < P; ++j) a[j] = acc[j] + acc[j + P];
  if (whole_packets > whole_lanes)
    for (std::size_t j = 0; j < P; ++j) a[j] = a[j] + r[whole_lanes + j] * x[whole_lanes + j];
  F s = reduce_packet<F>(a);
  for (std::size_t i = whole_packets; i < d; ++i) s = s + r[i] * x[i];
  return s;
}

}  // namespace seqi::replay_lanes
