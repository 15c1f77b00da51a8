#include "seqi/certification/construction_checks.hpp"

#include <algorithm>
#include <optional>
#include <utility>

#include "seqi/certification/certificate_checks.hpp"
#include "seqi/core/chunks.hpp"
#include "seqi/core/point_groups.hpp"

namespace seqi {
namespace {

std::string at(const TokenState& s, std::size_t i) {
  const auto j = static_cast<std::size_t>(std::upper_bound(s.begin.begin(), s.begin.end(), i) - s.begin.begin()) - 1;
  return "sequence " + std::to_string(j + 1) + ", token " + std::to_string(i - s.begin[j] + 1);
}

}  // namespace

void add_placement_checks(Certificate& cert, const TokenState& s, const Construction& built, unsigned threads) {
  const auto& p = built.record.placement;
  // The first two indices of the lexicographically first group of equal points: the pair
  // find_equal_pair reports, found by hashing instead of sorting every token.
  const auto groups = equal_point_groups(s.tokens);
  std::optional<std::pair<std::size_t, std::size_t>> equal;
  if (!groups.empty()) equal = std::pair{groups.front()[0], groups.front()[1]};
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
  const Rational r0_sq = p.r0 * p.r0;
  const auto first_outside = first_index_where(s.tokens.size(), threads, [&](std::size_t i) {
    return !is_leader[i] && norm_sq(Point(s.tokens[i] - c)) > r0_sq;
  });
  const std::string outside = first_outside ? at(s, *first_outside) + " lies outside B(C e1, r0)" : "";
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

namespace {

// Empty when the runs partition the clusters 0..count-1; otherwise the first cluster that is
// missing or repeated.
std::string partition_failure(const std::vector<std::vector<std::size_t>>& runs, std::size_t count) {
  std::vector<int> seen(count, 0);
  for (const auto& run : runs)
    for (std::size_t k : run) {
      if (k >= count) return "run member " + std::to_string(k + 1) + " is not a cluster";
      if (seen[k]++) return "cluster " + std::to_string(k + 1) + " lies in two runs";
    }
  for (std::size_t k = 0; k < count; ++k)
    if (!seen[k]) return "cluster " + std::to_string(k + 1) + " lies in no run";
  return {};
}

// Empty when every run is non-empty, has one target, lists its z increasing, and no cluster
// outside it has z in [z_lo - 3df, z_hi + 3df] (lem:run-interpolation); otherwise what fails.
std::string run_failure(const InterpolationRecord& rec, const std::vector<Point>& targets,
                        const std::vector<Rational>& sorted_z) {
  for (std::size_t u = 0; u < rec.runs.size(); ++u) {
    const auto& run = rec.runs[u];
    const std::string name = "run " + std::to_string(u + 1);
    if (run.empty()) return name + " is empty";
    for (std::size_t i = 1; i < run.size(); ++i) {
      if (!equal_points(targets[run[i]], targets[run[0]])) return name + " mixes two targets";
      if (!(rec.z[run[i - 1]] < rec.z[run[i]])) return name + " does not list its z increasing";
    }
    const Rational lo = rec.z[run.front()] - 3 * rec.df_of(u), hi = rec.z[run.back()] + 3 * rec.df_of(u);
    const auto inside = std::upper_bound(sorted_z.begin(), sorted_z.end(), hi) -
                        std::lower_bound(sorted_z.begin(), sorted_z.end(), lo);
    if (static_cast<std::size_t>(inside) != run.size())
      return name + ": another cluster's z lies within 3 df of [z_lo, z_hi]";
  }
  return {};
}

}  // namespace

void add_collapse_and_order_checks(Certificate& cert, const Dataset& data, const Construction& built) {
  const auto& rec = built.record.interpolation;
  std::vector<Rational> z = rec.z;
  std::sort(z.begin(), z.end());
  Rational gap = 1;  // no gap constraint with one cluster
  for (std::size_t k = 1; k < z.size(); ++k) gap = k == 1 ? z[1] - z[0] : std::min(gap, z[k] - z[k - 1]);
  const bool separated = z.size() < 2 || 4 * rec.df < gap;
  cert.add({"collapse values z_jl pairwise distinct with 4 df < g", "lem:collapse", separated, true,
            "g = " + approx_decimal(gap) + ", df = " + approx_decimal(rec.df)});

  std::vector<Point> targets;  // the values the flat hats write
  for (const auto& pair : data.pairs)
    for (const Point y : pair.output) targets.push_back(rec.written_value(y));
  std::string bad = targets.size() == rec.z.size() ? partition_failure(rec.runs, rec.z.size())
                                                   : "the record has " + std::to_string(rec.z.size()) +
                                                         " collapse values for " + std::to_string(targets.size()) +
                                                         " clusters";
  if (bad.empty()) bad = run_failure(rec, targets, z);
  const bool runs_ok = bad.empty() && rec.order.size() == rec.runs.size();
  if (bad.empty() && !runs_ok) bad = "the order does not list every run once";
  cert.add({"runs: one target each, consecutive z, no other z within 3 df of a run's window", "lem:run-interpolation",
            runs_ok, true, runs_ok ? std::to_string(rec.runs.size()) + " runs for " + std::to_string(targets.size()) +
                                         " clusters" : bad});
  if (!runs_ok) return;

  // No target placed by block i may read inside the window of a later block.
  std::vector<std::size_t> position(rec.order.size(), rec.order.size());
  for (std::size_t i = 0; i < rec.order.size(); ++i)
    if (rec.order[i] < position.size()) position[rec.order[i]] = i;
  // Run intervals [z_lo, z_hi] are disjoint (checked above): sorted by z_lo they are sorted by
  // z_hi too, and the windows holding a reading t form one stretch of that order.
  std::vector<std::size_t> by_z(rec.runs.size());
  for (std::size_t u = 0; u < by_z.size(); ++u) by_z[u] = u;
  std::sort(by_z.begin(), by_z.end(), [&](std::size_t a, std::size_t b) { return rec.z[rec.runs[a].front()] < rec.z[rec.runs[b].front()]; });
  std::string conflict;
  for (std::size_t u = 0; u < rec.runs.size() && conflict.empty(); ++u) {
    if (position[u] == rec.order.size()) conflict = "run " + std::to_string(u + 1) + " has no block";
    const Rational t = dot(rec.reading, targets[rec.runs[u].front()]);
    auto it = std::partition_point(by_z.begin(), by_z.end(), [&](std::size_t w) { return rec.z[rec.runs[w].back()] + 2 * rec.df_of(w) <= t; });
    for (; it != by_z.end() && rec.z[rec.runs[*it].front()] - 2 * rec.df_of(*it) < t && conflict.empty(); ++it)
      if (*it != u && position[*it] > position[u])
        conflict = "target of run " + std::to_string(u + 1) + " reads inside the window of the later run " +
                   std::to_string(*it + 1);
  }
  cert.add({"flat hats ordered so that no placed target reads inside a later window", "lem:run-interpolation",
            conflict.empty(), true, conflict.empty() ? std::to_string(rec.runs.size()) + " run targets" : conflict});
}

void add_block_count_checks(Certificate& cert, const Dataset& data, const Construction& built) {
  Counts& c = cert.counts;
  const std::size_t K = built.record.separation.lifts,
                    runs = built.record.interpolation.runs.size() + (built.record.interpolation.has_offset() ? 1 : 0);
  // The mean collapse has no phases S and P: no lift and no placed leader (lem:mean-collapse).
  const std::size_t placed = built.record.mean_collapse ? 0 : c.sum_m;
  c.distinct_targets = distinct_target_count(data);
  c.mean_collapse = built.record.mean_collapse;
  // Mean collapse: one run per sequence at most.
  const std::size_t offset = built.record.interpolation.has_offset() ? 1 : 0;
  c.blocks_bound_grouped = built.record.mean_collapse ? c.N + offset : K + placed + c.distinct_targets + 2;
  const auto in_phase = [&](const char* phase) {
    const auto it = c.blocks_by_phase.find(phase);
    return it == c.blocks_by_phase.end() ? std::size_t(0) : it->second;
  };
  const bool shape = c.blocks == K + placed + runs && in_phase("interpolation") == runs;
  const char* what = built.record.mean_collapse ? "blocks = runs + [offset] (mean collapse), one interpolation block per run"
                                                : "blocks = K + sum(m) + runs, one interpolation block per run";
  cert.add({what, "lem:fewer-blocks-count", shape, true,
            std::to_string(c.blocks) + " = " + std::to_string(K) + " + " + std::to_string(placed) + " + " +
                std::to_string(runs) + (shape ? "" : " fails (interpolation blocks: " +
                                                         std::to_string(in_phase("interpolation")) + ")")});
  cert.add({built.record.mean_collapse ? "blocks <= N + [offset] (at most one run per sequence)" : "blocks <= K + sum(m) + (distinct targets) + 2",
            "lem:fewer-blocks-count",
            c.blocks <= c.blocks_bound_grouped, true,
            count_detail(c.blocks, "<=", c.blocks_bound_grouped) + " (" + std::to_string(c.distinct_targets) +
                " distinct targets)"});
}

}  // namespace seqi
