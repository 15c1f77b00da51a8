// Exact check that every place reads at least one half-width left of the left breakpoint of
// every placement hat with positive slopes along the placement reading (lem:places-left): a
// placed leader then meets only hats whose units are all inactive on it.
#include <algorithm>
#include <string>
#include <vector>

#include "seqi/certification/construction_checks.hpp"
#include "seqi/core/chunks.hpp"
#include "seqi/forward/one_direction_ff.hpp"

namespace seqi {

namespace {

// c > 0 with u = c r, if there is one (r nonzero).
std::optional<Rational> positive_multiple(const Point& u, const Point& r) {
  Eigen::Index i = 0;
  while (i < r.size() && r[i] == 0) ++i;
  if (i == r.size() || u.size() != r.size()) return std::nullopt;
  const Rational c = u[i] / r[i];
  if (c <= 0) return std::nullopt;
  for (Eigen::Index k = 0; k < r.size(); ++k)
    if (u[k] != c * r[k]) return std::nullopt;
  return c;
}

}  // namespace

void add_places_left_check(Certificate& cert, const Construction& built, unsigned threads) {
  const auto& rec = built.record.placement;
  if (!rec.places_left()) return;  // the per-sequence circles do not read left of the shrunk tokens
  std::optional<Rational> highest;  // max over the places of r . P
  for (const auto& placed : rec.placed)
    for (const auto& p : placed) {
      const Rational t = dot(rec.reading, p);
      if (!highest || t > *highest) highest = t;
    }
  const auto& blocks = built.model.blocks;
  // Per block: whether it is a placement hat after the shrink layer (counted), and its failure.
  std::vector<char> hat(blocks.size());
  std::vector<std::string> why(blocks.size());
  for_each_chunk(blocks.size(), threads, [&](std::size_t, std::size_t first, std::size_t last) {
    for (std::size_t b = first; b < last; ++b) {
      if (blocks[b].phase != Phase::placement) continue;
      const auto form = identity_outside_breakpoints(blocks[b].ff);
      if (!form) continue;  // the shrink layer (lem:shrink) acts on every token anyway
      hat[b] = 1;
      const auto c = positive_multiple(form->r, rec.reading);
      const bool rising = c && std::all_of(form->slope.begin(), form->slope.end(), [](const Rational& s) { return s > 0; });
      if (!rising || !form->has_breakpoint)
        why[b] = "block " + std::to_string(b + 1) + " is not a hat rising along the placement reading";
      else if (highest && *c * *highest > form->lo - (form->hi - form->lo) / 2)  // lem:places-left
        why[b] = "block " + std::to_string(b + 1) + ": a place reads within one half-width of its window";
    }
  });
  std::size_t hats = 0;
  std::string bad;  // the first failing block's, as a sequential scan would stop there
  for (std::size_t b = 0; b < blocks.size() && bad.empty(); ++b) {
    hats += static_cast<std::size_t>(hat[b]);
    bad = why[b];
  }
  cert.add({"every place reads at least one half-width left of every later placement window", "lem:places-left",
            bad.empty(), false, bad.empty() ? std::to_string(hats) + " hats" : bad});
}

}  // namespace seqi
