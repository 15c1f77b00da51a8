#include "seqi/certification/construction_checks.hpp"

#include <algorithm>

#include "seqi/numbers/point_set.hpp"

namespace seqi {
namespace {

std::string at(const TokenState& s, std::size_t i) {
  const auto j = static_cast<std::size_t>(std::upper_bound(s.begin.begin(), s.begin.end(), i) - s.begin.begin()) - 1;
  return "sequence " + std::to_string(j + 1) + ", token " + std::to_string(i - s.begin[j] + 1);
}

}  // namespace

void add_placement_checks(Certificate& cert, const TokenState& s, const Construction& built) {
  const auto& p = built.record.placement;
  const auto equal = find_equal_pair(s.tokens);
  cert.add({"all tokens of all sequences are distinct points before the collapse", "lem:separation", !equal, true,
            equal ? at(s, equal->first) + " and " + at(s, equal->second) + " coincide" : "all distinct"});

  std::vector<bool> is_leader(s.tokens.size(), false);
  std::string misplaced;
  for (std::size_t j = 0; j < p.leaders.size(); ++j)
    for (std::size_t l = 0; l < p.leaders[j].size(); ++l) {
      is_leader[p.leaders[j][l]] = true;
      if (misplaced.empty() && !equal_points(s.tokens[p.leaders[j][l]], p.placed[j][l]))
        misplaced = at(s, p.leaders[j][l]) + " (leader " + std::to_string(l + 1) + ") is not at its place";
    }
  cert.add({"every leader stands at its place P_jl", "lem:placement", misplaced.empty(), true,
            misplaced.empty() ? "all leaders" : misplaced});

  Point c = Point::Zero(s.tokens.front().size());
  c[0] = p.C;
  std::string outside;
  for (std::size_t i = 0; i < s.tokens.size() && outside.empty(); ++i)
    if (!is_leader[i] && norm_sq(Point(s.tokens[i] - c)) > p.r0 * p.r0)
      outside = at(s, i) + " lies outside B(C e1, r0)";
  cert.add({"every other token lies in B(C e1, r0), C = " + to_string(p.C) + ", r0 = " + to_string(p.r0), "lem:shrink",
            outside.empty(), true, outside.empty() ? "all non-leaders" : outside});
}

namespace {

// Empty when sa = (rho, alpha I, v a^T) with alpha > 0; otherwise what differs.
std::string collapse_layer_mismatch(const SelfAttention<Rational>& sa, const InterpolationRecord& rec) {
  if (!sa.A.terms.empty() || sa.A.alpha <= 0) return "A is not alpha*I with alpha > 0";
  if (sa.V.alpha != 0 || sa.V.terms.size() != 1) return "V is not a single rank-one term v a^T";
  const auto& t = sa.V.terms.front();
  if (t.p.size() != rec.v.size() || !equal_points(t.p, rec.v)) return "V's left factor is not the recorded v";
  if (t.q.size() != rec.a.size() || !equal_points(t.q, rec.a)) return "V's right factor is not the recorded a";
  return {};
}

}  // namespace

bool add_collapse_layer_check(Certificate& cert, const Construction& built) {
  const std::size_t b = built.record.collapse_block;
  const std::string mismatch = b < built.model.blocks.size()
                                   ? collapse_layer_mismatch(built.model.blocks[b].sa, built.record.interpolation)
                                   : "the model has no block " + std::to_string(b + 1);
  cert.add({"collapse attention is (rho, alpha I, v a^T) with the recorded v, a and alpha > 0", "lem:collapse",
            mismatch.empty(), true,
            mismatch.empty() ? "block " + std::to_string(b + 1) : "block " + std::to_string(b + 1) + ": " + mismatch});
  return mismatch.empty();
}

void add_collapse_and_order_checks(Certificate& cert, const Dataset& data, const Construction& built) {
  const auto& rec = built.record.interpolation;
  std::vector<Rational> z = rec.z;
  std::sort(z.begin(), z.end());
  Rational gap = 1;  // no gap constraint with one cluster
  for (std::size_t k = 1; k < z.size(); ++k) gap = k == 1 ? z[1] - z[0] : std::min(gap, z[k] - z[k - 1]);
  const bool separated = z.size() < 2 || 4 * rec.df < gap;
  cert.add({"collapse values z_jl pairwise distinct with 4 df < g", "lem:collapse", separated, true,
            "g = " + approx_decimal(gap) + ", df = " + approx_decimal(rec.df)});

  // No target placed by block i may read inside the window of a later block.
  std::vector<Point> targets;
  for (const auto& pair : data.pairs) targets.insert(targets.end(), pair.output.begin(), pair.output.end());
  std::vector<std::size_t> position(rec.order.size());
  for (std::size_t i = 0; i < rec.order.size(); ++i) position[rec.order[i]] = i;
  std::vector<std::pair<Rational, std::size_t>> windows;  // (z, cluster), sorted
  for (std::size_t k = 0; k < rec.z.size(); ++k) windows.emplace_back(rec.z[k], k);
  std::sort(windows.begin(), windows.end());
  std::string conflict;
  for (std::size_t k = 0; k < targets.size() && conflict.empty(); ++k) {
    const Rational t = dot(rec.reading, targets[k]);
    auto it = std::upper_bound(windows.begin(), windows.end(), std::pair{t - 2 * rec.df, rec.z.size()});
    for (; it != windows.end() && it->first < t + 2 * rec.df; ++it)
      if (it->second != k && position[it->second] > position[k])
        conflict = "target of cluster " + std::to_string(k + 1) + " reads inside the window of the later cluster " +
                   std::to_string(it->second + 1);
  }
  cert.add({"flat hats ordered so that no placed target reads inside a later window", "lem:interpolation",
            conflict.empty(), true, conflict.empty() ? std::to_string(targets.size()) + " targets" : conflict});
}

}  // namespace seqi
