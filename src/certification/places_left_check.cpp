// Exact check that every place reads at least one half-width outside the window of every placement
// hat after the shrink layer, on the side where the hat's units are inactive: left of hats rising
// along the placement reading (lem:places-left), and, for the axis places moved into a reading gap,
// right of the mirrored hats too (lem:gap-places). A placed leader then meets only hats whose units
// are all inactive on it.
#include <algorithm>
#include <string>
#include <vector>

#include "seqi/certification/construction_checks.hpp"
#include "seqi/core/chunks.hpp"
#include "seqi/forward/one_direction_ff.hpp"

namespace seqi {

namespace {

// c != 0 with u = c r, if there is one (r nonzero).
std::optional<Rational> nonzero_multiple(const Point& u, const Point& r) {
  Eigen::Index i = 0;
  while (i < r.size() && r[i] == 0) ++i;
  if (i == r.size() || u.size() != r.size()) return std::nullopt;
  const Rational c = u[i] / r[i];
  if (c == 0) return std::nullopt;
  for (Eigen::Index k = 0; k < r.size(); ++k)
    if (u[k] != c * r[k]) return std::nullopt;
  return c;
}

}  // namespace

void add_places_left_check(Certificate& cert, const Construction& built, unsigned threads) {
  const auto& rec = built.record.placement;
  if (!rec.places_left()) return;  // the per-sequence circles do not read left of the shrunk tokens
  std::optional<Rational> lowest, highest;  // min and max over the places of r . P
  for (const auto& placed : rec.placed)
    for (const auto& p : placed) {
      const Rational t = dot(rec.reading, p);
      if (!highest || t > *highest) highest = t;
      if (!lowest || t < *lowest) lowest = t;
    }
  const bool split = rec.split.has_value();  // lem:gap-places: hats may also fall along r
  const auto& blocks = built.model.blocks;
  // Per block: 1 for a hat rising along r after the shrink layer, 2 for one falling, and its failure.
  std::vector<char> hat(blocks.size());
  std::vector<std::string> why(blocks.size());
  for_each_chunk(blocks.size(), threads, [&](std::size_t, std::size_t first, std::size_t last) {
    for (std::size_t b = first; b < last; ++b) {
      if (blocks[b].phase != Phase::placement) continue;
      const auto form = identity_outside_breakpoints(blocks[b].ff);
      if (!form) continue;  // the shrink layer (lem:shrink) acts on every token anyway
      // Along the layer's own reading u = form->r . x = c r.x its units relu(slope_k u + b_k), all
      // slopes positive, are active right of lo: on readings r.x above the window when c > 0 (a hat
      // rising along r), below it when c < 0 (falling: a mirrored hat, lem:gap-places).
      const auto c = nonzero_multiple(form->r, rec.reading);
      const bool positive = std::all_of(form->slope.begin(), form->slope.end(), [](const Rational& s) { return s > 0; });
      const std::string block = "block " + std::to_string(b + 1);
      if (!c || !positive || !form->has_breakpoint || (*c < 0 && !split)) {
        why[b] = block + " is not a hat rising along the placement reading" + (split ? " or falling along it" : "");
        continue;
      }
      hat[b] = *c > 0 ? 1 : 2;
      if (!highest) continue;  // no place
      // The largest u of a place: with a split reading every place reads it (checked below).
      const Rational u_most = *c * (split ? *rec.split : *highest);
      if (u_most > form->lo - (form->hi - form->lo) / 2)  // lem:places-left (3), lem:gap-places (4)
        why[b] = block + ": a place reads within one half-width of its window";
    }
  });
  std::size_t rising = 0, falling = 0;
  std::string bad;  // the first failing block's, as a sequential scan would stop there
  if (split && !(lowest && *lowest == *rec.split && *highest == *rec.split))
    bad = "the places do not all read the split reading " + rec.split->str();
  for (std::size_t b = 0; b < blocks.size() && bad.empty(); ++b) {
    rising += static_cast<std::size_t>(hat[b] == 1);
    falling += static_cast<std::size_t>(hat[b] == 2);
    bad = why[b];
  }
  if (!split) {
    cert.add({"every place reads at least one half-width left of every later placement window", "lem:places-left",
              bad.empty(), false, bad.empty() ? std::to_string(rising) + " hats" : bad});
    return;
  }
  cert.add({"every place reads the split reading, at least one half-width outside every later placement window on "
            "its inactive side", "lem:gap-places", bad.empty(), false,
            bad.empty() ? "places read " + rec.split->str() + "; " + std::to_string(rising) + " hats rising, " +
                              std::to_string(falling) + " falling"
                        : bad});
}

}  // namespace seqi
