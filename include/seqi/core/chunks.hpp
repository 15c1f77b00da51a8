// Work over n positions cut into contiguous chunks spread over threads (seqi/core/parallel.hpp),
// with results that do not depend on the thread count or the chunking.
#pragma once
#include <algorithm>
#include <cstddef>
#include <optional>
#include <utility>
#include <vector>

#include "seqi/core/parallel.hpp"

namespace seqi {

// [first, last) of chunk c when n positions are cut into `chunks` contiguous chunks, in order.
inline std::pair<std::size_t, std::size_t> chunk_range(std::size_t n, std::size_t chunks, std::size_t c) {
  const std::size_t base = n / chunks, extra = n % chunks;
  const std::size_t first = c * base + std::min(c, extra);
  return {first, first + base + (c < extra ? 1 : 0)};
}

// Chunks for `threads` threads over n positions: a few per thread (to even out their cost) of at
// least 32 positions (so that little work starts no thread), and one when threads <= 1.
inline std::size_t chunk_count(std::size_t n, unsigned threads) {
  constexpr std::size_t kMinChunk = 32;
  if (n == 0) return 0;
  if (threads <= 1) return 1;
  return std::clamp<std::size_t>(n / kMinChunk, 1, std::size_t(threads) * 8);
}

// Calls f(c, first, last) for every chunk of [0, n), on `threads` threads; as for_each_index:
// the exception of the first throwing chunk is rethrown.
template <class F>
void for_each_chunk(std::size_t n, unsigned threads, F&& f) {
  const std::size_t chunks = chunk_count(n, threads);
  for_each_index(chunks, threads, [&](std::size_t c) {
    const auto [first, last] = chunk_range(n, chunks, c);
    f(c, first, last);
  });
}

// The smallest i in [0, n) with found(i) (a pure predicate), on `threads` threads; nullopt when
// there is none.
template <class Found>
std::optional<std::size_t> first_index_where(std::size_t n, unsigned threads, Found found) {
  std::vector<std::optional<std::size_t>> first(chunk_count(n, threads));
  for_each_chunk(n, threads, [&](std::size_t c, std::size_t a, std::size_t b) {
    for (std::size_t i = a; i < b && !first[c]; ++i)
      if (found(i)) first[c] = i;
  });
  for (const auto& f : first)
    if (f) return f;
  return std::nullopt;
}

}  // namespace seqi
