// Runs of blocks that read one direction (passes.hpp): the placement hats of a construction
// sit one after another along one reading direction, each changing only the tokens whose
// reading falls under it, so a token skips to the next hat that can change it.
#include <algorithm>

#include "passes.hpp"

namespace check {
namespace {

// The block leaves every token alone but for its feed-forward layer, which has eta = 1 and
// reads one direction.
bool in_a_run(const Block& b, const FeedForwardPlan& ff) {
  return b.rho == 1 && b.V.zero() && b.eta == 1 && ff.rows.size() == 1;
}

// The hats of blocks [begin, end), sorted; false unless they are pairwise disjoint.
bool disjoint_hats(const std::vector<FeedForwardPlan>& ff, Run& run) {
  for (std::size_t k = run.begin; k < run.end; ++k) {
    const auto& row = ff[k].rows.front();
    const bool unbounded = !ff[k].identity_when_all_active;
    if (unbounded || row.least < row.most) run.hats.push_back({row.least, row.most, unbounded, k});
  }  // a hat (t, t] with every unit on the identity changes no token: none
  std::sort(run.hats.begin(), run.hats.end(), [](const Run::Hat& a, const Run::Hat& b) { return a.lo < b.lo; });
  for (std::size_t i = 0; i + 1 < run.hats.size(); ++i)
    if (run.hats[i].unbounded || run.hats[i].hi > run.hats[i + 1].lo) return false;
  return true;
}

}  // namespace

// Hats sorted by lo and disjoint have increasing hi: those meeting [rmin, rmax] (lo < rmax,
// hi >= rmin) are consecutive, from the first with hi >= rmin.
std::size_t Run::next(const Q& rmin, const Q& rmax, std::size_t from) const {
  auto it = std::partition_point(hats.begin(), hats.end(), [&](const Hat& h) { return !h.unbounded && h.hi < rmin; });
  std::size_t first = end;
  for (; it != hats.end() && it->lo < rmax; ++it)
    if (it->block >= from) first = std::min(first, it->block);
  return first;
}

std::map<std::size_t, Run> find_runs(const Model& m, const std::vector<FeedForwardPlan>& ff) {
  std::map<std::size_t, Run> runs;
  for (std::size_t k = 0; k < m.blocks.size();) {
    if (!in_a_run(m.blocks[k], ff[k])) {
      ++k;
      continue;
    }
    Run run;
    run.begin = k, run.dir = ff[k].rows.front().dir;
    while (k < m.blocks.size() && in_a_run(m.blocks[k], ff[k]) && ff[k].rows.front().dir == run.dir) ++k;
    run.end = k;
    if (run.end - run.begin >= 2 && disjoint_hats(ff, run)) runs.emplace(run.begin, std::move(run));
  }
  return runs;
}

}  // namespace check
