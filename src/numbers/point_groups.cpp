#include "seqi/numbers/point_groups.hpp"

#include <algorithm>
#include <utility>

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

std::vector<std::vector<std::size_t>> equal_point_groups(const std::vector<Point>& pts) {
  std::vector<std::vector<std::size_t>> groups;
  if (pts.empty()) return groups;
  const auto w = residue_weights(static_cast<std::size_t>(pts.front().size()));
  std::vector<std::uint64_t> key(pts.size());
  bool hashed = true;
  for (std::size_t i = 0; i < pts.size() && hashed; ++i) {
    const auto h = weighted_residue(w, pts[i]);
    hashed = h.has_value();
    if (hashed) key[i] = *h;
  }
  if (!hashed) {  // p divides a denominator: every point is one candidate run
    std::vector<std::size_t> all(pts.size());
    for (std::size_t i = 0; i < all.size(); ++i) all[i] = i;
    append_equal_classes(pts, std::move(all), groups);
    return groups;
  }
  for (auto& run : equal_key_runs(key)) append_equal_classes(pts, std::move(run), groups);
  std::sort(groups.begin(), groups.end(), [&](const std::vector<std::size_t>& a, const std::vector<std::size_t>& b) {
    return lex_less(pts[a.front()], pts[b.front()]);
  });
  return groups;
}

}  // namespace seqi
