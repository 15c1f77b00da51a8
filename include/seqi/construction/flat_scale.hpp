// The scale 2^k of the flat-hat reading r = 2^k r_hat and the order of the runs it allows
// (lem:flat-scale, lem:run-interpolation), chosen with rem:flat-range's estimate of what a
// float64 run of the flat hats costs. The estimate only steers a generic choice: every
// property the construction needs is checked exactly afterwards.
#pragma once
#include <optional>
#include <vector>

#include "seqi/construction/construction.hpp"
#include "seqi/numbers/rational.hpp"
#include "seqi/numbers/upward.hpp"

namespace seqi {

// What the flat hats must do, fixed before r is chosen.
struct FlatHatTask {
  std::vector<Rational> z;                      // collapse value per cluster
  std::vector<Point> targets;                   // target per cluster
  std::vector<std::vector<std::size_t>> runs;   // z-sorted runs of clusters with one target
  Rational df;                                  // window step: run u acts on (z_lo - 2df, z_hi + 2df)
  std::vector<Rational> run_df;                 // per run (empty: df for every run)
  std::vector<long> log2_yardstick;             // per cluster: floor log2 max(1, max |y|) over its
                                                // sequence's targets (the replays' relative scale)
  const Rational& df_of(std::size_t run) const { return run_df.empty() ? df : run_df[run]; }
  // Per run, its window (z_lo - 2 df, z_hi + 2 df) and the ends' double enclosures (for
  // filtered_compare): set by fill_windows.
  std::vector<Rational> window_lo, window_hi;
  std::vector<MidRad> window_lo_enclosure, window_hi_enclosure;
};

// Sets the windows and their enclosures from z, runs and the half-width steps.
void fill_windows(FlatHatTask& task);

// The task of the runs in `rec` (z, runs, df) for the targets of `data` (clusters j-major).
FlatHatTask flat_hat_task(const Dataset& data, const InterpolationRecord& rec);

// Run order for the target readings t[u] = r . y_u and the runs whose hats are mirrored
// (`mirrored` per run, empty for none): run u comes after the run whose window holds t[u] (at
// most one: the windows are disjoint), otherwise the other runs go by decreasing z and then the
// mirrored ones by increasing z (lem:hat-order, lem:mirrored-flat). nullopt on a cycle.
std::optional<std::vector<std::size_t>> flat_run_order(const FlatHatTask& task, const std::vector<Rational>& t,
                                                       const std::vector<bool>& mirrored);

// log2 of rem:flat-range's estimate of the largest error, relative to the yardstick, that a
// float64 run of the flat hats with reading 2^k r_hat in `order` adds to a token: writing a
// target from x = z v costs about u (|y| + max|z| / |r|); a run's hat adds about
// u |c| (|t| + |b|) (|c| = (|y| + max|z| / |r|) / df, b its breakpoints) to each token that
// then reads t right of its window (left for a mirrored hat): placed targets, and collapsed
// tokens of runs moved earlier. An estimate, not a bound.
double flat_float_log2_error(const FlatHatTask& task, const Point& r_hat, long k, const std::vector<std::size_t>& order,
                             const std::vector<bool>& mirrored);

struct FlatScale {
  long k = 0;                      // r = 2^k r_hat
  long default_k = 0;              // lem:flat-scale: largest k with max |2^k r_hat . y| <= max |z|
  std::vector<std::size_t> order;  // flat_run_order at 2^k r_hat
  std::vector<bool> mirrored;      // per run (empty: none): its hat reads -r (lem:mirrored-flat)
  double log2_error = 0;           // flat_float_log2_error at k
};

// Estimates at or below this (log2) keep lem:flat-scale's default scale.
constexpr double kFlatScaleLog2Goal = -30;
// A move from the default is made only if its estimate is at most this: about 1e-6, the
// tolerance of the float64 replays (seqi/replay/float_replays.hpp).
constexpr double kFlatScaleLog2Tolerance = -20;

// The first k of `ks` (in that order) whose run order exists at 2^k r_hat with `mirrored` and
// whose estimate is at most `level`, with `default_k` recorded; nullopt if none. One search is
// set up for all of them.
std::optional<FlatScale> first_scale_within(const FlatHatTask& task, const Point& r_hat, const std::vector<long>& ks,
                                            const std::vector<bool>& mirrored, double level, long default_k);

// lem:flat-scale's default k, no hat mirrored, when its order exists and its estimate is at
// most 2^-30, or when no candidate's estimate is at most 2^-20. Otherwise no hat, or the hats
// of the runs below 0, mirrored (the smaller estimate), and of the k whose estimate is within
// a bit of max(2^-30, the smallest estimate a scan of k finds) the one nearest the default.
// nullopt when the default has no order (a cycle): the caller draws r_hat again. Deterministic.
std::optional<FlatScale> choose_flat_scale(const FlatHatTask& task, const Point& r_hat);

}  // namespace seqi
