// Builds the interpolating transformer of proofs/construction.tex (phases S, P, C, I)
// and records every generic choice, so the certificate can state and re-check them.
#pragma once
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "seqi/construction/generic_choice.hpp"
#include "seqi/construction/hats.hpp"
#include "seqi/construction/shifted_tokens.hpp"
#include "seqi/core/dataset.hpp"
#include "seqi/model/token_state.hpp"
#include "seqi/model/transformer.hpp"

namespace seqi {

struct SeparationRecord {
  std::size_t lifts = 0;        // K: hat blocks that lift one shared point each (lem:distinct-means)
  bool shift_used = false;      // some token lies in two sequences (lem:separation)
};

struct PlacementRecord {
  Rational eps, C, r0;           // shrink x -> eps x + C e1 into B(C e1, r0) (lem:shrink)
  Point reading;                 // common reading direction of the placement hats
  // Per sequence: token indices (into the dataset's TokenState) of the leaders, leader 1 first,
  // and where each goes: P_j1 = R_j e1, P_jl = rho_j((t^2-1)/(t^2+1), 2t/(t^2+1)) for l >= 2.
  std::vector<std::vector<std::size_t>> leaders;
  std::vector<std::vector<Point>> placed;
  std::vector<Rational> R, rho;
  std::vector<std::vector<Rational>> circle_t;
  // Collapse direction a = a1 e1 + a2 e2 fixed by the grouped places (lem:grouped-places);
  // nullopt: any a with a1 = 1 keeps the slot order (every m_j = 1).
  std::optional<std::pair<Rational, Rational>> collapse;
  // Every place reads outside every later placement window, on its inactive side: the one-arc
  // places of case (3) of lem:grouped-places left of every shrunk token (lem:places-left), the
  // axis places of case (1) (every m_j = 1) either so or in a gap between them (`split`,
  // lem:gap-places, whichever draw is better conditioned); not the per-sequence circles of case (2).
  bool places_left() const { return collapse.has_value() || axis_places(); }
  // The axis places of case (1) (no circle leader): the ones a split reading may move (lem:gap-places).
  bool axis_places() const {
    return !collapse.has_value() &&
           std::all_of(circle_t.begin(), circle_t.end(), [](const std::vector<Rational>& t) { return t.empty(); });
  }
  // lem:gap-places (axis places): every place reads `split` along the reading; the leaders reading
  // below it after the shrink (but the shrink layer's) are placed by hats reading -reading.
  std::optional<Rational> split;
};

struct InterpolationRecord {
  Point a;                       // collapse: x -> (a . x_att) v (lem:collapse)
  Point v, reading;              // flat hats read r.x with r.v = 1
  Rational gap, df;              // smallest gap g of the z values; 4 df < g
  // Per run (empty: df for every run): its own half-width step, at most 1/4 of the distance from
  // its values to the nearest other value (lem:mean-collapse); df is their minimum.
  std::vector<Rational> run_df;
  const Rational& df_of(std::size_t run) const { return run_df.empty() ? df : run_df[run]; }
  std::vector<Rational> z;       // z per cluster (j, l), clusters numbered j-major
  // Runs: maximal sets of clusters with one target and consecutive z, each in increasing z;
  // one flat hat per run (lem:run-interpolation).
  std::vector<std::vector<std::size_t>> runs;
  std::vector<std::size_t> order;  // run index of each interpolation block (lem:run-interpolation)
  // Per run (empty: none): its flat hat reads -r and acts left of its window (lem:mirrored-flat).
  std::vector<bool> mirrored;
  // Empty or 0: none. Otherwise the flat hats write y - offset and a last block adds offset to
  // every token (a constant unit, lem:mean-collapse), so that each hat moves a token only as far
  // as the targets' spread. Every cluster's written value is written_value(target).
  Point offset;
  bool has_offset() const { return offset.size() > 0 && !offset.isZero(); }
  // Mean collapse only: false for flat hats; otherwise the tokens go to their targets by this many
  // hinge units and the last layer's two (lem:hinge-interpolation), and runs, order, mirrored,
  // run_df and offset are empty.
  bool by_hinges = false;
  std::size_t hinges = 0;
  Point written_value(const Point& target) const { return has_offset() ? Point(target - offset) : target; }
};

struct ConstructionRecord {
  std::uint64_t seed = 0;
  std::vector<ChoiceLog> choices;
  SeparationRecord separation;
  PlacementRecord placement;
  InterpolationRecord interpolation;
  std::size_t collapse_block = 0;  // index of the block whose SA is the collapse
  // lem:mean-collapse (every m_j = 1, distinct means): no phases S and P; the collapse is block 0's
  // attention with A = 0, sending every token of X_j to (a . mu_j) v; separation and placement empty.
  bool mean_collapse = false;
};

struct Construction {
  Transformer<Rational> model;
  ConstructionRecord record;
};

// What a certificate states of a construction's record (the reports' seed, lifts and logged
// choices); not the per-sequence leaders, places and z, which the certificate's checks read from
// the Construction itself (a copy of them costs about 3 bytes per input coordinate at scale).
struct ConstructionSummary {
  std::uint64_t seed = 0;
  std::vector<ChoiceLog> choices;
  SeparationRecord separation;
  bool mean_collapse = false;
};

inline ConstructionSummary summary_of(const ConstructionRecord& r) {
  return {r.seed, r.choices, r.separation, r.mean_collapse};
}

struct ConstructionOptions {
  // Use the mean collapse (lem:mean-collapse) where it applies; false: always phases S, P, C, I.
  bool mean_collapse = true;
  // Where it applies, also build phases S, P, C, I and keep the smaller exact ||theta||^2.
  bool keep_lighter = true;
};

// Preconditions: data satisfies H1-H5 (as returned by the dataset reader).
// Throws ConstructionError when a generic choice cannot be found (not expected).
// Independent per-token and per-block steps run on exec's threads, the costliest of them split
// among exec.sharding's processes (collective then: every process calls it with the same
// arguments and gets the same construction); the construction depends on neither count.
Construction build_interpolating_transformer(const Dataset& data, std::uint64_t seed, const Execution& exec,
                                             const ConstructionOptions& options = {});
inline Construction build_interpolating_transformer(const Dataset& data, std::uint64_t seed, unsigned threads = 1,
                                                    const ConstructionOptions& options = {}) {
  return build_interpolating_transformer(data, seed, Execution{nullptr, threads, nullptr}, options);
}

// Phase S's result: the attention layer of the next block (the shift x -> x + v (f . mu_j), or
// the identity) and s_j = f . mu_j per sequence (empty without a shift).
struct Separation {
  SelfAttention<Rational> shift;
  Point v;
  std::vector<Rational> s;
  std::vector<HatMove> lifts;  // the lift hats, in order (blocks 0 .. K-1)
};

// Phases, each appending its blocks. Separation advances `config` (the exact token positions;
// a construction-side forward pass that the certificate redoes) by its lifts and returns the
// shift, which the placement reads through ShiftedTokens; the placement is the last phase that
// reads token positions. The shift at several sizes (rem:shift-sizes): the lifts and the draw of
// (f, v) are made once, then one entry per h in `halvings` with v / 2^h, nullopt where that shift
// leaves two tokens equal. Without a shared token: one entry, the identity, whatever `halvings`.
std::vector<std::optional<Separation>> build_separation(LiftedInputs& config, Rng& rng, Construction& out,
                                                        unsigned threads = 1, const std::vector<int>& halvings = {0});
// Phase P in two steps. The plan: the shrink (out.record.placement's eps, C, r0), the places
// (lem:grouped-places), the reading and the leaders (out.record.placement) and each leader's hat
// half-width; no block yet.
struct PlacementPlan {
  Point C_e1;
  std::vector<Point> places;
  std::vector<Rational> delta;
};
PlacementPlan plan_placement(const Dataset& data, const ShiftedTokens& tokens, Rng& rng, Construction& out,
                             unsigned threads);
// The plan's hats. plateaus: how many placement hats after the shrink layer carry a plateau
// (lem:plateau-hat). With `budget` the hats' exact ||theta||^2 is summed as they are built (in
// chunks of a fixed size): once it reaches *budget the placement stops, appends no hat and
// returns that sum (a lower bound on the phase's norm). Otherwise every hat is appended and
// nullopt returned.
std::optional<Rational> add_placement_hats(const ShiftedTokens& tokens, const SelfAttention<Rational>& first_sa,
                                           const PlacementPlan& plan, std::size_t plateaus, const Execution& exec,
                                           const std::optional<Rational>& budget, Construction& out);
void build_collapse_and_interpolation(const Dataset& data, Rng& rng, Construction& out);

// lem:mean-collapse: where every m_j = 1 and the sequences' means are pairwise distinct, the whole
// construction is the collapse x -> (a . mu_j) v (attention with A = 0) and the flat hats of
// phase I; returns its exact ||theta||^2, or nullopt (out unchanged but for a logged reason)
// where it does not apply. Collective with exec.sharding. between: when given, called once by every
// process after building its share of the candidate directions and before they are compared (as
// in shard_map), and only when there are candidates; with two or more processes, process 0 then
// builds no candidate (shard_map's first_part = 1) and runs between() alone.
std::optional<Rational> build_mean_collapse(const Dataset& data, Construction& out, const Execution& exec,
                                            const std::function<void()>& between = {});

// The smallest gap between consecutive values of `sorted` (increasing by value; 0 on a tie), or
// 1 with fewer than two values: lem:collapse's g.
Rational smallest_sorted_gap(const std::vector<std::pair<Rational, std::size_t>>& sorted);

// Phase I from the record's collapse values z (and a): the flat-hat reading, df, runs and order,
// and one block per run; the first block's attention is the collapse (0, alpha I, v a^T).
// per_run_windows: each run gets its own half-width step (InterpolationRecord::run_df).
void build_flat_hats(const Dataset& data, Rng& rng, Construction& out, const Rational& collapse_alpha,
                     bool per_run_windows);

}  // namespace seqi
