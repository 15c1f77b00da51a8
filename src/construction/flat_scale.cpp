// rem:flat-range's estimate and the scale of the flat-hat reading it steers (lem:flat-scale).
#include "seqi/construction/flat_scale.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "seqi/numbers/dyadic.hpp"
#include "seqi/numbers/filtered_order.hpp"

namespace seqi {
namespace {

constexpr double kNone = -std::numeric_limits<double>::infinity();
constexpr double kLog2Unit = -53;  // float64 unit roundoff u = 2^-53

// log2 |q| to within half a unit (-inf for 0): enough for an estimate, and finite for every
// rational, however large or small (a double would overflow).
double log2_abs(const Rational& q) { return q == 0 ? kNone : static_cast<double>(floor_log2(abs(q))) + 0.5; }

double log2_norm(const Point& p) { return log2_abs(norm_sq(p)) / 2; }

// log2 (2^a + 2^b).
double log2_sum(double a, double b) {
  if (a < b) std::swap(a, b);
  return b == kNone ? a : a + std::log2(1 + std::exp2(b - a));
}

// Largest value over a range of slots, with slots set and cleared one at a time.
class RangeMax {
 public:
  explicit RangeMax(std::size_t n) : n_(n), tree_(2 * n, kNone) {}
  // Slot i's value before build(): many slots set in O(n) instead of O(n log n).
  void preset(std::size_t i, double value) { tree_[i + n_] = value; }
  void build() {
    for (std::size_t i = n_; i-- > 1;) tree_[i] = std::max(tree_[2 * i], tree_[2 * i + 1]);
  }
  void set(std::size_t i, double value) {
    for (tree_[i += n_] = value; i > 1; i /= 2) tree_[i / 2] = std::max(tree_[i], tree_[i ^ 1]);
  }
  double max_over(std::size_t begin, std::size_t end) const {  // slots [begin, end)
    double best = kNone;
    for (std::size_t lo = begin + n_, hi = end + n_; lo < hi; lo /= 2, hi /= 2) {
      if (lo & 1) best = std::max(best, tree_[lo++]);
      if (hi & 1) best = std::max(best, tree_[--hi]);
    }
    return best;
  }

 private:
  std::size_t n_;
  std::vector<double> tree_;
};

// Order in which every run u comes after prerequisite[u] (if any), otherwise following
// `starts` (a permutation of the runs); nullopt on a cycle.
std::optional<std::vector<std::size_t>> prerequisite_order(
    const std::vector<std::optional<std::size_t>>& prerequisite, const std::vector<std::size_t>& starts) {
  const std::size_t n = prerequisite.size();
  std::vector<int> state(n, 0);  // 0 new, 1 on the current chain, 2 emitted
  std::vector<std::size_t> order;
  for (std::size_t start : starts) {
    std::vector<std::size_t> chain;
    for (std::size_t k = start; state[k] == 0;) {
      state[k] = 1;
      chain.push_back(k);
      if (!prerequisite[k]) break;
      k = *prerequisite[k];
    }
    if (chain.empty()) continue;
    // The walk stopped at an emitted run (fine) or at one on this chain (a cycle).
    const auto& last = prerequisite[chain.back()];
    if (last && state[*last] == 1) return std::nullopt;
    for (auto it = chain.rbegin(); it != chain.rend(); ++it) {
      state[*it] = 2;
      order.push_back(*it);
    }
  }
  return order;
}

// Indices of `values` in increasing order of value (ties by index).
std::vector<std::size_t> increasing(const std::vector<Rational>& values) {
  std::vector<std::size_t> order(values.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return values[a] < values[b]; });
  return order;
}

// A reading in log2_error's merged order: its value, the value's double enclosure, and its slot id
// (a cluster c, or K + u for run u's placed target).
struct Key {
  const Rational* value;
  const MidRad* enclosure;
  std::size_t id;
};

class FlatScaleSearch {
 public:
  FlatScaleSearch(const FlatHatTask& task, const Point& r_hat) : task_(task) {
    Rational zmax = 0;
    for (const auto& z : task.z) zmax = std::max(zmax, Rational(abs(z)));
    Rational ty = 0;
    for (const auto& run : task.runs) {
      t_hat_.push_back(dot(r_hat, task.targets[run.front()]));
      ty = std::max(ty, Rational(abs(t_hat_.back())));
      log2_y_.push_back(log2_norm(task.targets[run.front()]));
      long yard = std::numeric_limits<long>::max();
      for (std::size_t c : run) yard = std::min(yard, task.log2_yardstick[c]);
      yardstick_.push_back(static_cast<double>(yard));
    }
    default_k_ = ty > 0 && zmax > 0 ? floor_log2(zmax / ty) : 0;
    log2_zmax_ = log2_abs(zmax);
    log2_r_hat_ = log2_norm(r_hat);
    // What log2_error needs of the keys, once: their orders (a scale 2^k keeps the readings'
    // order) and log2 |key| (log2 |2^k t_hat| = log2 |t_hat| + k).
    z_order_ = increasing(task.z);
    t_order_ = increasing(t_hat_);
    for (const auto& z : task.z) log2_z_.push_back(log2_abs(z));
    z_enclosure_ = enclosures(task.z);
    for (const auto& th : t_hat_) log2_t_hat_.push_back(log2_abs(th));
    for (std::size_t u = 0; u < task.runs.size(); ++u) {
      log2_window_.push_back(std::max(log2_abs(task.window_lo[u]), log2_abs(task.window_hi[u])));
      log2_df_.push_back(log2_abs(task.df_of(u)));
    }
  }

  long default_k() const { return default_k_; }

  // Bits between the largest target and the smallest yardstick, plus a margin.
  long search_radius() const {
    double top = 0, bottom = 0;
    for (std::size_t u = 0; u < t_hat_.size(); ++u) {
      top = std::max(top, log2_y_[u]);
      bottom = std::min(bottom, yardstick_[u]);
    }
    return std::clamp(static_cast<long>(top - bottom) + 64, 64L, 8192L);
  }

  // The candidate at scale k with the given hats mirrored, if its run order exists; its estimate
  // is exact when at most `stop_above`, otherwise only known to exceed it.
  std::optional<FlatScale> candidate(long k, const std::vector<bool>& mirrored, long recorded_default_k,
                                     double stop_above = std::numeric_limits<double>::infinity()) const {
    const auto t = readings(k);
    auto order = flat_run_order(task_, t, mirrored);
    if (!order) return std::nullopt;
    const double error = log2_error(k, t, *order, mirrored, stop_above);
    return FlatScale{k, recorded_default_k, std::move(*order), mirrored, error};
  }

  std::vector<Rational> readings(long k) const {
    const Rational s = pow2(k);
    std::vector<Rational> t;
    t.reserve(t_hat_.size());
    for (const auto& th : t_hat_) t.push_back(th * s);
    return t;
  }

  // The estimate (log2, relative to the yardstick): the larger of writing targets from
  // collapsed tokens (falls with k) and tokens read on the active side of later windows.
  // With `stop_above`, returns as soon as the estimate is known to exceed it (the value returned
  // then exceeds it too, and may be below the full estimate).
  double log2_error(long k, const std::vector<Rational>& t, const std::vector<std::size_t>& order,
                    const std::vector<bool>& mirrored,
                    double stop_above = std::numeric_limits<double>::infinity()) const {
    const double log2_v = log2_zmax_ - (log2_r_hat_ + static_cast<double>(k));  // max |x| of a collapsed x
    // Slots: one per cluster (its collapsed token, keyed by z), then one per run (its placed
    // target, keyed by its reading), sorted by key.
    const std::size_t K = task_.z.size(), R = task_.runs.size();
    // Exact comparisons of the keys, filtered by their double enclosures (numbers/filtered_order).
    const std::vector<MidRad> t_enclosure = enclosures(t);
    std::vector<Key> keys;  // the merge of the two sorted orders
    keys.reserve(K + R);
    for (std::size_t i = 0, j = 0; i < K || j < R;) {
      const std::size_t zi = i < K ? z_order_[i] : 0, tj = j < R ? t_order_[j] : 0;
      if (j == R || (i < K && filtered_compare(task_.z[zi], z_enclosure_[zi], t[tj], t_enclosure[tj]) <= 0))
        keys.push_back({&task_.z[zi], &z_enclosure_[zi], zi}), ++i;
      else
        keys.push_back({&t[tj], &t_enclosure[tj], K + tj}), ++j;
    }
    std::vector<std::size_t> slot(K + R);
    for (std::size_t i = 0; i < keys.size(); ++i) slot[keys[i].id] = i;
    auto first_above = [&](const Rational& x, const MidRad& ex) {  // first slot whose key exceeds x
      return static_cast<std::size_t>(
          std::upper_bound(keys.begin(), keys.end(), 0,
                           [&](int, const Key& key) { return filtered_compare(x, ex, *key.value, *key.enclosure) < 0; }) -
          keys.begin());
    };
    auto first_at_least = [&](const Rational& x, const MidRad& ex) {
      return static_cast<std::size_t>(
          std::lower_bound(keys.begin(), keys.end(), 0,
                           [&](const Key& key, int) { return filtered_compare(*key.value, *key.enclosure, x, ex) < 0; }) -
          keys.begin());
    };
    // Per present token: log2 (|reading| / yardstick) and log2 (1 / yardstick).
    RangeMax reading(keys.size()), scale(keys.size());
    auto place = [&](std::size_t s, double log2_key, double yard) {
      reading.set(s, log2_key - yard);
      scale.set(s, -yard);
    };
    auto clear = [&](std::size_t s) {
      reading.set(s, kNone);
      scale.set(s, kNone);
    };
    for (std::size_t c = 0; c < K; ++c) {
      const auto yard = static_cast<double>(task_.log2_yardstick[c]);
      reading.preset(slot[c], log2_z_[c] - yard);
      scale.preset(slot[c], -yard);
    }
    reading.build();
    scale.build();

    double writing = kNone, crossing = kNone;
    for (std::size_t u : order) {
      const auto& run = task_.runs[u];
      const double size = log2_sum(log2_y_[u], log2_v);  // |y| + max |z| / |r|
      writing = std::max(writing, kLog2Unit + size - yardstick_[u]);
      // A token reading t on the active side of the window (right; left for a mirrored hat)
      // gets u |c| (|t| + |b|), b its breakpoints.
      const Rational &left_end = task_.window_lo[u], &right_end = task_.window_hi[u];
      const bool left = !mirrored.empty() && mirrored[u];
      const std::size_t begin = left ? 0 : first_above(right_end, task_.window_hi_enclosure[u]),
                        end = left ? first_at_least(left_end, task_.window_lo_enclosure[u]) : keys.size();
      const double lever = log2_sum(reading.max_over(begin, end),
                                    log2_window_[u] + scale.max_over(begin, end));
      crossing = std::max(crossing, kLog2Unit + size - log2_df_[u] + lever);
      if (std::max(writing, crossing) > stop_above) break;  // the max only grows
      for (std::size_t c : run) clear(slot[c]);
      place(slot[K + u], log2_t_hat_[u] + static_cast<double>(k), yardstick_[u]);
    }
    return std::max(writing, crossing);
  }

 private:
  const FlatHatTask& task_;
  std::vector<Rational> t_hat_;  // r_hat . y per run
  std::vector<double> log2_y_, yardstick_;
  long default_k_ = 0;
  double log2_zmax_ = kNone, log2_r_hat_ = 0;
  std::vector<std::size_t> z_order_, t_order_;  // indices by increasing z, by increasing t_hat
  std::vector<double> log2_z_, log2_t_hat_, log2_window_, log2_df_;  // per cluster, run, run, run
  std::vector<MidRad> z_enclosure_;
};

}  // namespace

void fill_windows(FlatHatTask& task) {
  task.window_lo.clear();
  task.window_hi.clear();
  for (std::size_t u = 0; u < task.runs.size(); ++u) {
    task.window_lo.push_back(task.z[task.runs[u].front()] - 2 * task.df_of(u));
    task.window_hi.push_back(task.z[task.runs[u].back()] + 2 * task.df_of(u));
  }
  task.window_lo_enclosure = enclosures(task.window_lo);
  task.window_hi_enclosure = enclosures(task.window_hi);
}

FlatHatTask flat_hat_task(const Dataset& data, const InterpolationRecord& rec) {
  FlatHatTask task{rec.z, {}, rec.runs, rec.df, rec.run_df, {}, {}, {}, {}, {}};
  for (const auto& pair : data.pairs) {
    Rational largest = 1;  // the replays measure sequence j relative to max(1, max |y|)
    for (const auto& y : pair.output) {
      task.targets.push_back(rec.written_value(y));
      largest = std::max(largest, norm_sq(y));
    }
    task.log2_yardstick.insert(task.log2_yardstick.end(), pair.output.size(), floor_log2(largest) / 2);
  }
  fill_windows(task);
  return task;
}

std::optional<std::vector<std::size_t>> flat_run_order(const FlatHatTask& task, const std::vector<Rational>& t,
                                                       const std::vector<bool>& mirrored) {
  const std::size_t runs = task.runs.size();
  std::vector<std::optional<std::size_t>> prerequisite(runs);
  // Runs are numbered by increasing z and their windows are disjoint, so the windows ending
  // right of t form a suffix.
  const std::vector<MidRad> te = enclosures(t);  // exact comparisons, filtered
  for (std::size_t u = 0; u < runs; ++u) {
    std::size_t lo = 0, hi = runs;  // first run w whose window ends right of t[u]
    while (lo < hi) {
      const std::size_t mid = lo + (hi - lo) / 2;
      if (filtered_compare(task.window_hi[mid], task.window_hi_enclosure[mid], t[u], te[u]) <= 0) lo = mid + 1;
      else hi = mid;
    }
    const std::size_t w = lo;
    if (w < runs && w != u && filtered_compare(task.window_lo[w], task.window_lo_enclosure[w], t[u], te[u]) < 0)
      prerequisite[u] = w;
  }
  // Runs are numbered by increasing z: hats acting rightward from the last, then mirrored
  // ones from the first, keep every waiting token on the inactive side of every earlier hat
  // (lem:hat-order, lem:mirrored-flat).
  std::vector<std::size_t> starts;
  const auto is_mirrored = [&](std::size_t u) { return !mirrored.empty() && mirrored[u]; };
  for (std::size_t u = runs; u-- > 0;)
    if (!is_mirrored(u)) starts.push_back(u);
  for (std::size_t u = 0; u < runs; ++u)
    if (is_mirrored(u)) starts.push_back(u);
  return prerequisite_order(prerequisite, starts);
}

double flat_float_log2_error(const FlatHatTask& task, const Point& r_hat, long k, const std::vector<std::size_t>& order,
                             const std::vector<bool>& mirrored) {
  const FlatScaleSearch search(task, r_hat);
  return search.log2_error(k, search.readings(k), order, mirrored);
}

std::optional<FlatScale> first_scale_within(const FlatHatTask& task, const Point& r_hat, const std::vector<long>& ks,
                                            const std::vector<bool>& mirrored, double level, long default_k) {
  const FlatScaleSearch search(task, r_hat);
  for (long k : ks)
    if (auto c = search.candidate(k, mirrored, default_k, level); c && c->log2_error <= level) return c;
  return std::nullopt;
}

std::optional<FlatScale> choose_flat_scale(const FlatHatTask& task, const Point& r_hat) {
  const FlatScaleSearch search(task, r_hat);
  const long k0 = search.default_k();
  auto at = [&](long k, const std::vector<bool>& mirrored,
                double stop_above = std::numeric_limits<double>::infinity()) {
    return search.candidate(k, mirrored, k0, stop_above);
  };
  auto fallback = at(k0, {});
  if (!fallback || fallback->log2_error <= kFlatScaleLog2Goal) return fallback;

  // The smallest estimate E, for all hats rightward and for the hats of runs below 0 mirrored
  // (targets reading near 0 then lie on the inactive side of every hat): a scan of
  // [k0 - radius, k0 + radius], refined around its best point (both terms share
  // max |z| / |r|, which falls with k, while |c| |t| grows with |t|).
  std::vector<bool> below_zero(task.runs.size());
  for (std::size_t u = 0; u < task.runs.size(); ++u) below_zero[u] = task.window_hi[u] <= 0;
  const long radius = search.search_radius();
  auto lowest = fallback;
  auto try_k = [&](long k, const std::vector<bool>& mirrored) {
    auto c = at(k, mirrored, lowest->log2_error);
    if (c && c->log2_error < lowest->log2_error) lowest = std::move(c);
  };
  const long step = std::max(1L, radius / 32);
  for (const auto& mirrored : {std::vector<bool>{}, below_zero})
    for (long k = k0 - radius; k <= k0 + radius; k += step) try_k(k, mirrored);
  const auto mirrored = lowest->mirrored;
  for (long s = step / 2; s >= 1; s /= 2) {
    const long centre = lowest->k;
    try_k(centre - s, mirrored);
    try_k(centre + s, mirrored);
  }
  // A move that the estimate does not expect to reach the replays' tolerance is not made.
  if (lowest->log2_error > kFlatScaleLog2Tolerance || (lowest->k == k0 && lowest->mirrored.empty())) return fallback;
  // Then the k nearest the default whose estimate is within a bit of max(E, 2^-30): between
  // the default and the best point the estimate falls, and nearer the default the targets'
  // readings stay nearer max |z| (bisection for the first k within, from the default's side).
  const double level = std::max(kFlatScaleLog2Goal, lowest->log2_error + 1);
  auto within = [&](long k) {
    const auto c = at(k, mirrored, level);
    return c && c->log2_error <= level;
  };
  long lo = std::min(k0, lowest->k), hi = std::max(k0, lowest->k);
  const bool upward = lowest->k > k0;
  while (lo < hi) {  // upward: smallest k within; downward: largest k within
    const long mid = upward ? lo + (hi - lo) / 2 : hi - (hi - lo) / 2;
    if (within(mid) == upward) (upward ? hi : lo) = mid;
    else (upward ? lo : hi) = upward ? mid + 1 : mid - 1;
  }
  auto nearest = at(lo, mirrored);
  return nearest && nearest->log2_error <= level ? nearest : lowest;
}

}  // namespace seqi
