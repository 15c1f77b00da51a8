// The float replays' kernels also as AVX2 clones, chosen at load time where the CPU has AVX2 (GCC
// on x86-64). Only for loops whose every lane is its own chain of rounded operations, so that
// every clone computes the same floats; raw pointers only: Eigen's packet and alignment choices
// must not differ between clones or translation units.
#pragma once

#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
#define SEQI_REPLAY_CLONES __attribute__((target_clones("avx2", "default")))
#else
#define SEQI_REPLAY_CLONES
#endif
