// lem:mean-collapse (proofs/mean-collapse.tex): where every m_j = 1, attention with A = 0 sends
// every token of X_j to V mu_j, the sequence's mean, exactly (all scores tie in hardmax; every
// softmax weight is 1/n_j at every temperature). With V = v a^T every token reads z_j = a . mu_j,
// and phase I's flat hats write the targets: no separation, no placement.
#include <Eigen/Dense>
#include <algorithm>
#include <cmath>
#include <mutex>
#include <optional>
#include <string>

#include "seqi/construction/collapse_directions.hpp"
#include "seqi/construction/conditioning_choice.hpp"
#include "seqi/construction/construction.hpp"
#include "seqi/construction/construction_bytes.hpp"
#include "seqi/construction/hinge_interpolation.hpp"
#include "seqi/core/point_groups.hpp"
#include "seqi/core/sharding.hpp"
#include "seqi/numbers/dyadic.hpp"

namespace seqi {
namespace {

// Planned collapse values are spaced (1/8)(1 + 1/256): after the rounding of a every gap stays
// above 1/8, so df = dyadic floor of g / 8 is 2^-6.
Rational planned_gap() { return {257, 2048}; }

std::vector<Point> sequence_means(const Dataset& data, unsigned threads) {
  std::vector<Point> means(data.pairs.size());
  for_each_index(data.pairs.size(), threads, [&](std::size_t j) {
    if (data.pairs[j].input.mean(means[j])) return;  // on the int64 numerators
    Point sum = Point::Zero(data.dimension);
    for (const Point x : data.pairs[j].input) sum += x;
    means[j] = sum / Rational(static_cast<long>(data.pairs[j].input.size()));
  });
  return means;
}

// Sequences ordered by target (lexicographically): equal targets adjacent, so they share a run.
std::vector<std::size_t> by_target(const Dataset& data) {
  std::vector<Point> targets;
  for (const auto& pair : data.pairs) targets.push_back(pair.output[0]);
  std::vector<std::size_t> order(targets.size());
  for (std::size_t j = 0; j < order.size(); ++j) order[j] = j;
  std::stable_sort(order.begin(), order.end(), [&](std::size_t i, std::size_t j) {
    return lex_less(targets[i], targets[j]);
  });
  return order;
}

// Per sequence, the index of its target among the distinct targets in lexicographic order.
std::vector<std::size_t> target_labels(const Dataset& data, const std::vector<std::size_t>& order) {
  std::vector<std::size_t> rank(order.size());
  std::size_t r = 0;
  for (std::size_t i = 0; i < order.size(); ++i) {
    if (i > 0 && !equal_points(data.pairs[order[i]].output[0], data.pairs[order[i - 1]].output[0])) ++r;
    rank[order[i]] = r;
  }
  return rank;
}

std::string sequence_pair_text(const std::vector<std::size_t>& group) {
  return "sequences " + std::to_string(group[0] + 1) + " and " + std::to_string(group[1] + 1);
}

// The targets' centroid, truncated to a multiple of 2^-30, when moving from the collapsed tokens to
// y - offset costs well under moving to y (the flat hats' weights grow with |y - z v|; the offset
// block costs about 2 |offset|); else empty. A choice of the construction only, estimated in doubles.
Point worthwhile_offset(const Dataset& data) {
  Point c = Point::Zero(data.dimension);
  for (const auto& pair : data.pairs) c += pair.output[0];
  c /= Rational(static_cast<long>(data.pairs.size()));
  for (Eigen::Index i = 0; i < c.size(); ++i) c[i] = truncated_dyadic(c[i], 30);
  double plain = 0, moved = std::sqrt(norm_sq(c).convert_to<double>());
  for (const auto& pair : data.pairs) {
    const Point y = pair.output[0];
    plain += std::sqrt(norm_sq(y).convert_to<double>());
    moved += std::sqrt(norm_sq(Point(y - c)).convert_to<double>());
  }
  return 2 * moved < plain ? c : Point();
}

// Sequences ordered along the targets' principal direction (power iteration in doubles on their
// covariance; a choice only): neighbouring collapse values then have near targets, so the hinges
// of lem:hinge-interpolation turn little.
std::vector<std::size_t> by_principal_direction(const Dataset& data) {
  const std::size_t N = data.pairs.size();
  const auto d = static_cast<Eigen::Index>(data.dimension);
  Eigen::MatrixXd Y(static_cast<Eigen::Index>(N), d);
  for (std::size_t j = 0; j < N; ++j)
    for (Eigen::Index c = 0; c < d; ++c) Y(static_cast<Eigen::Index>(j), c) = data.pairs[j].output[0][c].convert_to<double>();
  Y.rowwise() -= Y.colwise().mean();
  Eigen::VectorXd w = Eigen::VectorXd::Ones(d);
  for (int it = 0; it < 200; ++it) {
    const Eigen::VectorXd next = Y.transpose() * (Y * w);
    if (!(next.norm() > 0)) break;
    w = next / next.norm();
  }
  const Eigen::VectorXd t = Y * w;
  std::vector<std::size_t> order(N);
  for (std::size_t j = 0; j < N; ++j) order[j] = j;
  std::stable_sort(order.begin(), order.end(), [&](std::size_t i, std::size_t j) {
    return t[static_cast<Eigen::Index>(i)] < t[static_cast<Eigen::Index>(j)];
  });
  return order;
}

void set_collapse_values(const std::vector<Point>& means, InterpolationRecord& rec) {
  rec.z.clear();
  for (const auto& mu : means) rec.z.push_back(dot(rec.a, mu));
}

// The collapse values z_j = a . mu_j and phase I (a set).
bool finish_mean_collapse(const Dataset& data, const std::vector<Point>& means, Rng& rng, Construction& out) {
  auto& rec = out.record.interpolation;
  set_collapse_values(means, rec);
  rec.offset = worthwhile_offset(data);
  if (rec.has_offset()) out.record.choices.push_back({"target offset (the targets' centroid, a dyadic): the flat hats "
                                                      "write y - offset, a last block adds it (lem:mean-collapse)",
                                                      1, Integer(0)});
  out.record.mean_collapse = true;
  build_flat_hats(data, rng, out, Rational(0), true);
  return true;
}

// lem:hinge-interpolation: `before` (the record up to a, no flat hat yet) with hinges, kept in
// `built` when its exact ||theta||^2 is below `norm` (the flat hats'), which it then becomes.
void lighter_by_hinges(const Dataset& data, const std::vector<Point>& means, Construction before,
                       Construction& built, Rational& norm) {
  set_collapse_values(means, before.record.interpolation);
  before.record.mean_collapse = true;
  if (!build_hinge_interpolation(data, before)) return;
  const Rational hinged = exact_norm_sq(before.model);
  const std::string compared = approx_decimal(hinged, 4) + " against flat hats " + approx_decimal(norm, 4);
  if (!(hinged < norm)) {
    built.record.choices.push_back({"flat hats kept: hinges (lem:hinge-interpolation) " + compared, 1, Integer(0)});
    return;
  }
  before.record.choices.push_back({"interpolation by " + std::to_string(before.record.interpolation.hinges) +
                                       " hinges (lem:hinge-interpolation): ||theta||^2 " + compared,
                                   1, Integer(0)});
  built = std::move(before);
  norm = hinged;
}

// A candidate direction's exact ||theta||^2, or why it could not be built, to and from bytes.
struct TrialNorm {
  Rational norm;
  std::optional<std::string> failure;  // a ConstructionError's message
};

void put_trial_norm(ByteWriter& w, const TrialNorm& t) {
  w.put(t.norm), w.put(t.failure.has_value());
  if (t.failure) w.put(std::string_view(*t.failure));
}

TrialNorm get_trial_norm(ByteReader& r) {
  TrialNorm t{r.rational(), std::nullopt};
  if (r.flag()) t.failure = r.string();
  return t;
}

// The order in which the candidates (the drawn direction first) are computed: in order on one
// process, where threads take the next candidate as they finish; with several processes, each of
// which computes a contiguous block, the drawn one last, so that it has the last process to
// itself where there are enough (its flat-hat reading often needs the most draws: all 70,000
// Fashion-MNIST images, 36 s against 17 s for the planned direction). The results do not depend
// on the order.
std::vector<std::size_t> computation_order(std::size_t candidates, const Execution& exec) {
  std::vector<std::size_t> slot(candidates);
  for (std::size_t k = 0; k < candidates; ++k) slot[k] = k;
  if (sharded(exec)) std::rotate(slot.begin(), slot.begin() + 1, slot.end());
  return slot;
}

// Trial `chosen` on every process: trials[chosen] (by computation slot) is set on the process
// that built it, which sends its bytes to the others (collective with exec.sharding; first_part
// as the candidates were shared out).
Construction built_by_owner(std::vector<std::optional<Construction>>& trials, std::size_t chosen,
                            const Execution& exec, std::size_t first_part) {
  if (!sharded(exec)) return std::move(*trials[chosen]);
  const auto bytes = shard_map<std::string>(
      trials.size(), exec,
      [&](std::size_t i) { return i == chosen ? construction_to_bytes(*trials[i]) : std::string(); },
      [](ByteWriter& w, const std::string& b) { w.put(std::string_view(b)); },
      [](ByteReader& r) { return r.string(); }, {}, first_part);
  return trials[chosen] ? std::move(*trials[chosen]) : construction_from_bytes(bytes[chosen]);
}

// The lightest candidate built so far on this process (candidates may finish on several threads
// at once): a candidate that can no longer be kept frees its model at once, so at most one built
// model besides those being built is alive. Kept: least norm, then least candidate index, as
// build_mean_collapse chooses.
class LightestTrial {
 public:
  explicit LightestTrial(std::vector<std::optional<Construction>>& trials) : trials_(trials) {}
  void offer(std::size_t slot, std::size_t candidate, const Rational& norm) {
    const std::lock_guard<std::mutex> lock(mutex_);
    if (best_ && !(norm < best_->norm || (norm == best_->norm && candidate < best_->candidate))) {
      trials_[slot].reset();
      return;
    }
    if (best_) trials_[best_->slot].reset();
    best_ = Best{norm, candidate, slot};
  }

 private:
  struct Best {
    Rational norm;
    std::size_t candidate, slot;
  };
  std::vector<std::optional<Construction>>& trials_;
  std::mutex mutex_;
  std::optional<Best> best_;
};

}  // namespace

std::optional<Rational> build_mean_collapse(const Dataset& data, Construction& out, const Execution& exec,
                                            const std::function<void()>& between) {
  const unsigned threads = exec.threads;
  for (const auto& pair : data.pairs)
    if (pair.output.size() != 1) return std::nullopt;
  const std::vector<Point> means = sequence_means(data, threads);
  if (const auto equal = equal_point_groups(means, threads); !equal.empty()) {
    out.record.choices.push_back({"mean collapse (lem:mean-collapse) not used: " + sequence_pair_text(equal.front()) +
                                      " have one mean",
                                  0, Integer(0)});
    return std::nullopt;
  }
  Point centroid = Point::Zero(data.dimension);
  for (const auto& mu : means) centroid += mu;
  centroid /= Rational(static_cast<long>(means.size()));

  auto& rec = out.record.interpolation;
  Rng rng(out.record.seed);
  Rational reach = 0;  // max_j |mu_j|_1
  for (const auto& mu : means) reach = std::max(reach, l1_norm(mu));
  // Means pairwise distinct: a generic a reads them pairwise distinct (each draw is redrawn until
  // it does); of four, centred and plain in turn, the best score wins.
  std::vector<Point> kept;
  int drawn = 0;
  choose_best_conditioned("mean-collapse direction a (centred on the means or plain)", "collapse score", 4,
                          Integer(1) << 8, [&](const Integer& range) -> std::optional<Rational> {
    const int bits = static_cast<int>(boost::multiprecision::msb(range));
    rec.a = drawn++ % 2 == 0 ? centred_direction(rng, data.dimension, bits, centroid)
                             : dyadic_direction(rng, data.dimension, bits);
    return collapse_score(rec.a, means, reach);
  }, [&](int) { kept.push_back(rec.a); }, [&](int i) { rec.a = kept[static_cast<std::size_t>(i)]; },
                          out.record.choices);
  // The planned and fitted directions, where they exist, are built beside the drawn one; the
  // smallest ||theta||^2 (exact) is kept.
  const std::vector<std::size_t> order = by_target(data);
  std::vector<std::pair<std::string, Point>> candidates{{"drawn", rec.a}};
  if (auto planned = planned_direction(means, centroid, order, planned_gap()))
    candidates.emplace_back("planned (collapse values evenly spaced, equal targets adjacent)", std::move(*planned));
  const bool try_hinges = data.pairs.size() <= kHingeSequenceLimit;
  if (try_hinges)
    if (auto along = planned_direction(means, centroid, by_principal_direction(data), planned_gap()))
      candidates.emplace_back("planned along the targets' principal direction", std::move(*along));
  if (auto fitted = discriminant_direction(means, centroid, target_labels(data, order)))
    if (collapse_score(*fitted, means, reach)) candidates.emplace_back("discriminant", std::move(*fitted));
  // Each candidate from its own copy of the record and generator, so building them side by side
  // (one per thread or process) changes nothing. Every process sees the same failures.
  std::vector<std::optional<Construction>> trials(candidates.size());  // by computation slot
  const std::vector<std::size_t> slot = computation_order(candidates.size(), exec);
  // Where there is a `between` (the leaders' plan), process 0 runs it alone and the other
  // processes take the candidates.
  const std::size_t first_part = between ? 1 : 0;
  LightestTrial lightest(trials);
  const auto computed = shard_map<TrialNorm>(
      candidates.size(), exec,
      [&](std::size_t k) -> TrialNorm {
        const std::size_t i = slot[k];
        try {
          Rng trial_rng = rng;
          trials[k] = out;
          trials[k]->record.interpolation.a = candidates[i].second;
          std::optional<Construction> before;  // the record before the flat hats, for the hinges
          if (try_hinges) before = *trials[k];
          finish_mean_collapse(data, means, trial_rng, *trials[k]);
          Rational norm = exact_norm_sq(trials[k]->model);  // one thread each: candidates run side by side
          if (before) lighter_by_hinges(data, means, std::move(*before), *trials[k], norm);
          lightest.offer(k, i, norm);
          return {norm, std::nullopt};
        } catch (const ConstructionError& e) {
          return {Rational(0), e.what()};
        }
      },
      put_trial_norm, get_trial_norm, between, first_part);
  std::vector<TrialNorm> trial_norms(candidates.size());
  for (std::size_t k = 0; k < slot.size(); ++k) trial_norms[slot[k]] = computed[k];
  // A candidate that cannot be built is passed over; with none built, the first one's error.
  std::optional<std::size_t> best;
  std::string compared;
  for (std::size_t i = 0; i < candidates.size(); ++i) {
    const TrialNorm& t = trial_norms[i];
    compared += (compared.empty() ? "" : ", ") + candidates[i].first + " " +
                (t.failure ? "not built (" + *t.failure + ")" : approx_decimal(t.norm, 4));
    if (!t.failure && (!best || t.norm < trial_norms[*best].norm)) best = i;
  }
  if (!best) throw ConstructionError(*trial_norms.front().failure);
  out = built_by_owner(trials, static_cast<std::size_t>(std::find(slot.begin(), slot.end(), *best) - slot.begin()), exec,
                       first_part);
  out.record.choices.push_back({"mean-collapse direction a by least ||theta||^2 (lem:mean-collapse): " + compared, 1,
                                Integer(0)});
  return trial_norms[*best].norm;
}

}  // namespace seqi
