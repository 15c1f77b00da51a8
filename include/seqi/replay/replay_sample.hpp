// Which sequences a float replay covers: every one when the estimated work fits the
// budget, otherwise a seeded spread over the whole dataset (not its first sequences), so that a
// large run samples every part of it. Deterministic: the same lengths, budget and seed give the
// same sample on every platform and thread count.
#pragma once
#include <cstddef>
#include <cstdint>
#include <vector>

namespace seqi {

// The seed of the replays' sample, recorded in the summary and --json.
inline constexpr std::uint64_t kReplaySampleSeed = 16;

// Indices into `lengths` (tokens per sequence), ascending. All of them when per_token times the
// total token count is at most `budget`. Otherwise the longest prefix of a seeded random order
// (Fisher-Yates over SplitMix64(seed)) whose work stays within the budget, skipping no sequence
// before the first that does not fit; at least one sequence whenever lengths is non-empty.
std::vector<std::size_t> replay_sample(const std::vector<std::size_t>& lengths, double per_token, double budget,
                                       std::uint64_t seed);

}  // namespace seqi
