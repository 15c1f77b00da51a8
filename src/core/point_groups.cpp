#include "seqi/core/point_groups.hpp"

#include <algorithm>
#include <atomic>
#include <utility>

#include "seqi/core/chunks.hpp"
#include "seqi/numbers/point_set.hpp"
#include "seqi/numbers/residue.hpp"

namespace seqi {
namespace {

// Splits `members` (ascending indices) into groups of >= 2 equal points, appended to out with
// the point of each.
void append_equal_classes(const std::function<Point(std::size_t)>& point, std::vector<std::size_t> members,
                          std::vector<std::pair<Point, std::vector<std::size_t>>>& out) {
  if (members.size() < 2) return;
  std::vector<Point> pts;  // pts[k] is point members[k]
  for (std::size_t i : members) pts.push_back(point(i));
  // Common case: the whole run is one point (no sort needed).
  if (std::all_of(pts.begin() + 1, pts.end(), [&](const Point& x) { return equal_points(pts.front(), x); })) {
    out.emplace_back(std::move(pts.front()), std::move(members));
    return;
  }
  std::vector<std::size_t> order(members.size());
  for (std::size_t k = 0; k < order.size(); ++k) order[k] = k;
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return lex_less(pts[a], pts[b]); });
  for (std::size_t k = 0; k < order.size();) {
    std::size_t e = k + 1;
    while (e < order.size() && equal_points(pts[order[k]], pts[order[e]])) ++e;
    if (e - k >= 2) {
      std::vector<std::size_t> group;
      for (std::size_t t = k; t < e; ++t) group.push_back(members[order[t]]);
      out.emplace_back(pts[order[k]], std::move(group));
    }
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
  if (pts.empty()) return {};
  return equal_point_groups(pts.size(),
                            weighted_residues(residue_weights(static_cast<std::size_t>(pts.front().size())), pts, threads),
                            [&](std::size_t i) { return pts[i]; });
}

std::vector<std::vector<std::size_t>> equal_point_groups(std::size_t n, const std::optional<std::vector<std::uint64_t>>& key,
                                                         const std::function<Point(std::size_t)>& point) {
  std::vector<std::pair<Point, std::vector<std::size_t>>> found;
  if (!key) {  // p divides a denominator: every point is one candidate run
    std::vector<std::size_t> all(n);
    for (std::size_t i = 0; i < n; ++i) all[i] = i;
    append_equal_classes(point, std::move(all), found);
  } else {
    for (auto& run : equal_key_runs(*key)) append_equal_classes(point, std::move(run), found);
    std::sort(found.begin(), found.end(), [](const auto& a, const auto& b) { return lex_less(a.first, b.first); });
  }
  std::vector<std::vector<std::size_t>> groups;
  for (auto& g : found) groups.push_back(std::move(g.second));
  return groups;
}

}  // namespace seqi
