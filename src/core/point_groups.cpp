#include "seqi/core/point_groups.hpp"

#include <algorithm>
#include <atomic>
#include <utility>

#include "seqi/core/chunks.hpp"
#include "seqi/numbers/point_set.hpp"
#include "seqi/numbers/residue.hpp"

namespace seqi {
namespace {

// Splits `members` (ascending indices) into groups of >= 2 equal points, appended to out.
void append_equal_classes(const std::vector<Point>& pts, std::vector<std::size_t> members,
                          std::vector<std::vector<std::size_t>>& out) {
  if (members.size() < 2) return;
  // Common case: the whole run is one point (no sort needed).
  if (std::all_of(members.begin() + 1, members.end(),
                  [&](std::size_t i) { return equal_points(pts[members.front()], pts[i]); })) {
    out.push_back(std::move(members));
    return;
  }
  std::stable_sort(members.begin(), members.end(),
                   [&](std::size_t a, std::size_t b) { return lex_less(pts[a], pts[b]); });
  for (std::size_t k = 0; k < members.size();) {
    std::size_t e = k + 1;
    while (e < members.size() && equal_points(pts[members[k]], pts[members[e]])) ++e;
    if (e - k >= 2) out.emplace_back(members.begin() + static_cast<std::ptrdiff_t>(k),
                                     members.begin() + static_cast<std::ptrdiff_t>(e));
    k = e;
  }
}

}  // namespace

std::optional<std::vector<std::uint64_t>> weighted_residues(const std::vector<std::uint64_t>& w,
                                                            const std::vector<Point>& pts, unsigned threads) {
  std::vector<std::uint64_t> key(pts.size());
  std::atomic<bool> hashed{true};
  for_each_chunk(pts.size(), threads, [&](std::size_t, std::size_t first, std::size_t last) {
    for (std::size_t i = first; i < last && hashed.load(std::memory_order_relaxed); ++i) {
      const auto h = weighted_residue(w, pts[i]);
      if (!h) hashed = false;
      else key[i] = *h;
    }
  });
  if (!hashed) return std::nullopt;
  return key;
}

std::vector<std::vector<std::size_t>> equal_key_runs(const std::vector<std::uint64_t>& key) {
  std::vector<std::pair<std::uint64_t, std::size_t>> sorted(key.size());
  for (std::size_t i = 0; i < key.size(); ++i) sorted[i] = {key[i], i};
  std::sort(sorted.begin(), sorted.end());
  std::vector<std::vector<std::size_t>> runs;
  for (std::size_t k = 0; k < sorted.size();) {
    std::size_t e = k + 1;
    while (e < sorted.size() && sorted[e].first == sorted[k].first) ++e;
    if (e - k >= 2) {
      runs.emplace_back();
      for (std::size_t i = k; i < e; ++i) runs.back().push_back(sorted[i].second);
    }
    k = e;
  }
  return runs;
}

std::vector<std::vector<std::size_t>> equal_point_groups(const std::vector<Point>& pts, unsigned threads) {
  std::vector<std::vector<std::size_t>> groups;
  if (pts.empty()) return groups;
  const auto key = weighted_residues(residue_weights(static_cast<std::size_t>(pts.front().size())), pts, threads);
  if (!key) {  // p divides a denominator: every point is one candidate run
    std::vector<std::size_t> all(pts.size());
    for (std::size_t i = 0; i < all.size(); ++i) all[i] = i;
    append_equal_classes(pts, std::move(all), groups);
    return groups;
  }
  for (auto& run : equal_key_runs(*key)) append_equal_classes(pts, std::move(run), groups);
  std::sort(groups.begin(), groups.end(), [&](const std::vector<std::size_t>& a, const std::vector<std::size_t>& b) {
    return lex_less(pts[a.front()], pts[b.front()]);
  });
  return groups;
}

}  // namespace seqi
