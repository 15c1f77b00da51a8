#include "seqi/numbers/point_set.hpp"

#include <algorithm>
#include <numeric>

namespace seqi {

std::vector<std::size_t> lex_order(const std::vector<Point>& pts) {
  std::vector<std::size_t> idx(pts.size());
  std::iota(idx.begin(), idx.end(), 0);
  std::stable_sort(idx.begin(), idx.end(),
                   [&](std::size_t a, std::size_t b) { return lex_less(pts[a], pts[b]); });
  return idx;
}

std::optional<std::pair<std::size_t, std::size_t>> find_equal_pair(const std::vector<Point>& pts) {
  auto idx = lex_order(pts);
  for (std::size_t k = 1; k < idx.size(); ++k)
    if (equal_points(pts[idx[k - 1]], pts[idx[k]])) return std::pair{idx[k - 1], idx[k]};
  return std::nullopt;
}

std::vector<Point> as_sorted_set(std::vector<Point> pts) {
  std::sort(pts.begin(), pts.end(), lex_less);
  pts.erase(std::unique(pts.begin(), pts.end(), equal_points), pts.end());
  return pts;
}

bool equal_as_sets(const std::vector<Point>& a, const std::vector<Point>& b) {
  auto sa = as_sorted_set(a), sb = as_sorted_set(b);
  return std::equal(sa.begin(), sa.end(), sb.begin(), sb.end(), equal_points);
}

bool set_contains(const std::vector<Point>& sorted_set, const Point& p) {
  return std::binary_search(sorted_set.begin(), sorted_set.end(), p, lex_less);
}

}  // namespace seqi
