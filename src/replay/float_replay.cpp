#include "seqi/replay/float_replay.hpp"

#include <algorithm>
#include <bit>
#include <cmath>
#include <limits>
#include <numeric>

#include "replay/replay_clones.hpp"
#include "replay/replay_direction.hpp"
#include "replay/replay_readings.hpp"
#include "seqi/replay/replay_sample.hpp"
#include "replay/replay_update.hpp"
#include "seqi/core/parallel.hpp"

namespace seqi {
namespace {

template <class F>
F to_float(const Rational& x) {
  return static_cast<F>(x.convert_to<double>());  // float32: nearest via double (display only)
}

template <class F>
StructuredMatrix<F> to_float(const StructuredMatrix<Rational>& s) {
  StructuredMatrix<F> out{to_float<F>(s.alpha), {}};
  for (const auto& t : s.terms)
    out.terms.push_back({t.p.unaryExpr([](const Rational& x) { return to_float<F>(x); }),
                         t.q.unaryExpr([](const Rational& x) { return to_float<F>(x); })});
  return out;
}

// Attention of sequence columns [lo, hi) of X in place (column lo is token `global` over all
// sequences); counts float argmaxes that differ from the certified leaders when `attends` is given.
template <class F>
void attend(const SelfAttention<F>& sa, Mat<F>& X, std::size_t lo, std::size_t hi, std::optional<double> tau,
            std::size_t global, const std::vector<std::size_t>* attends, std::size_t& wrong) {
  const auto n = static_cast<Eigen::Index>(hi - lo);
  const auto block = X.middleCols(static_cast<Eigen::Index>(lo), n);
  Mat<F> out(X.rows(), n);
  if (sa.is_mean_shift()) {
    const Vec<F> shift = sa.V.apply(Vec<F>(block.rowwise().sum() / static_cast<F>(n)));
    for (Eigen::Index i = 0; i < n; ++i) out.col(i) = block.col(i) * sa.rho + shift;
  } else {
    std::vector<F> s(static_cast<std::size_t>(n));
    for (Eigen::Index i = 0; i < n; ++i) {
      const Vec<F> Ax = sa.A.apply(Vec<F>(block.col(i)));
      for (Eigen::Index l = 0; l < n; ++l) s[static_cast<std::size_t>(l)] = Ax.dot(block.col(l));
      const auto top = std::max_element(s.begin(), s.end());
      if (attends && global + static_cast<std::size_t>(top - s.begin()) != (*attends)[global + static_cast<std::size_t>(i)])
        ++wrong;
      Vec<F> acc = Vec<F>::Zero(X.rows());
      F weight_sum = 0;
      for (Eigen::Index l = 0; l < n; ++l) {
        const F sl = s[static_cast<std::size_t>(l)];
        const F w = tau ? std::exp((sl - *top) / static_cast<F>(*tau)) : F(sl == *top ? 1 : 0);
        weight_sum += w;
        acc += block.col(l) * w;
      }
      out.col(i) = block.col(i) * sa.rho + sa.V.apply(Vec<F>(acc / weight_sum));
    }
  }
  X.middleCols(static_cast<Eigen::Index>(lo), n) = out;
}

}  // namespace

double hausdorff_distance(const std::vector<Vec<double>>& a, const std::vector<Vec<double>>& b) {
  auto directed = [](const std::vector<Vec<double>>& p, const std::vector<Vec<double>>& q) {
    double worst = 0;
    for (const auto& x : p) {
      double nearest = std::numeric_limits<double>::infinity();
      for (const auto& y : q) nearest = std::min(nearest, (x - y).norm());
      worst = std::max(worst, nearest);
    }
    return worst;
  };
  return std::max(directed(a, b), directed(b, a));
}

// The replay's parts (a named namespace: FloatReplay<F>::Impl holds them).
namespace replay_parts {

template <class F>
struct FloatBlock {
  bool identity_attention = true;
  SelfAttention<F> sa;
  F eta;
  Mat<F> U, W;
  Vec<F> b;
  // Set when the float rows are slope_k r (replay_direction.hpp).
  std::optional<std::size_t> direction;  // index of r among the distinct float directions
  Vec<F> r, slope;
};

// Fills block.r, block.slope and block.direction (appending r to `directions` when new) when the
// float rows are power-of-two multiples of one row; leaves direction unset otherwise.
template <class F>
void find_direction(FloatBlock<F>& block, std::vector<Vec<F>>& directions) {
  auto one = one_direction<F>(block.U);
  if (!one) return;
  auto it = std::find(directions.begin(), directions.end(), one->r);
  if (it == directions.end()) it = directions.insert(directions.end(), one->r);
  block.direction = static_cast<std::size_t>(it - directions.begin());
  block.r = std::move(one->r);
  block.slope = std::move(one->slope);
}

// Readings t_i = fl(r . x_i) per token, valid for direction `direction` except for the tokens
// listed in `stale` (changed since their reading): a float dot product of the same vectors in
// the same order gives the same float, so a reading is recomputed only when its token changed.
template <class F>
struct ReadingCache {
  std::vector<F> t;
  std::optional<std::size_t> direction;  // nullopt: every reading stale
  std::vector<std::uint32_t> stale;      // tokens whose reading is stale (when direction is set)
  std::vector<unsigned char> touched;    // apply_feed_forward's scratch
  std::vector<std::uint32_t> active;     // apply_feed_forward's scratch: the touched tokens

  void forget() { direction.reset(); }
};

// touched[k] |= (slope t_k + b > 0 or NaN) for k < n: one unit's pass over the readings. Raw
// restrict pointers: through std::vector<unsigned char> every store may alias the readings, and
// the loop would stay scalar. Elementwise: every clone computes the same floats.
template <class F>
SEQI_REPLAY_CLONES void mark_touched(unsigned char* __restrict touched, const F* __restrict t, std::size_t n, F slope,
                                     F b) {
  for (std::size_t k = 0; k < n; ++k) touched[k] |= static_cast<unsigned char>(!(slope * t[k] + b <= F(0)));
}

// X <- eta X + W relu(U X + b) in F. One-direction blocks: per token the cached reading, the w
// pre-activations slope_k t + b_k, and x <- eta x + sum_k W_k h_k over the units with h_k != 0
// (a zero unit adds exactly 0: a token left of every breakpoint stays bit for bit the same, so
// only the tokens with some h_k != 0 are visited; h_k = max(pre, 0) != 0 iff !(pre <= 0), NaN
// included). Other blocks: the dense products. Both are float runs of the rounded weights in the
// model of lem:float-run (each dot product and sum in some order, every operation rounded).
// next_reads_same: the next layer reads the same direction with no attention between, so the
// changed tokens are read again right after their update (the same floats as reading them then).
template <class F>
void apply_feed_forward(const FloatBlock<F>& block, Mat<F>& X, ReadingCache<F>& cache, bool next_reads_same) {
  if (!block.direction) {
    const Mat<F> hidden = ((block.U * X).colwise() + block.b).cwiseMax(F(0));
    X = X * block.eta + block.W * hidden;
    cache.forget();
    return;
  }
  const Eigen::Index w = block.slope.size();  // U itself is dropped (its rows are slope_k r)
  const std::size_t n = static_cast<std::size_t>(X.cols());
  F* t = cache.t.data();
  const auto d = static_cast<std::size_t>(X.rows());
  if (cache.direction != block.direction) {
    cache.stale.resize(n);
    std::iota(cache.stale.begin(), cache.stale.end(), std::uint32_t{0});
    cache.direction = block.direction;
  }
  fixed_order_readings(block.r.data(), X.data(), d, cache.stale.data(), cache.stale.size(), t);
  // touched[k]: some unit of token k is nonzero (one pass per unit over the contiguous readings),
  // then the touched tokens listed without a branch per token.
  std::vector<unsigned char>& touched = cache.touched;
  touched.assign(n, block.eta != F(1) ? 1 : 0);
  for (Eigen::Index u = 0; u < w; ++u) mark_touched(touched.data(), t, n, block.slope[u], block.b[u]);
  std::vector<std::uint32_t>& list = cache.active;
  list.resize(n);
  std::size_t count = 0;
  for (std::size_t k = 0; k < n; ++k) {
    list[count] = static_cast<std::uint32_t>(k);
    count += touched[k];
  }
  list.resize(count);
  // When the next layer reads the same direction, each touched token is read again in its update.
  update_listed(X.data(), d, list.data(), count, t, block.slope.data(), block.b.data(), block.W.data(),
                static_cast<std::size_t>(w), block.eta, next_reads_same ? block.r.data() : nullptr);
  if (next_reads_same) cache.stale.clear();  // every reading is fresh
  else std::swap(cache.stale, list);         // the touched tokens changed: their readings are stale
}

// The replayed sequences: chosen[c] is a sequence index, its tokens are columns begin[c] ..
// begin[c + 1] of the replay and tokens global[c] .. of the dataset (attends' indexing).
struct ReplayedSequences {
  std::vector<std::size_t> chosen, begin, global;
};

struct ChunkResult {
  double max_relative_hausdorff = 0;
  std::size_t sequences_off_target = 0, wrong_leader = 0, nonfinite = 0;
};

// The first block whose float run needs a fact of the certificate: the collapse block (its
// certified leaders) or the first attention layer that is neither the identity nor a mean shift
// (its softmax temperature); blocks.size() when there is none.
template <class F>
std::size_t first_block_needing_facts(const std::vector<FloatBlock<F>>& blocks, std::optional<std::size_t> collapse) {
  std::size_t b = 0;
  while (b < blocks.size() && (!collapse || b < *collapse) &&
         (blocks[b].identity_attention || blocks[b].sa.is_mean_shift()))
    ++b;
  return b;
}

}  // namespace replay_parts
using namespace replay_parts;

template <class F>
struct FloatReplay<F>::Impl {
  const Dataset& data;
  int dimension = 0;
  std::optional<std::size_t> collapse_block;
  double tolerance = 0;
  ReplayOutcome run;  // the fields known before replaying
  std::vector<FloatBlock<F>> blocks;
  std::size_t prefix_end = 0;
  ReplayedSequences seqs;
  std::vector<std::size_t> chunk_first;  // chunk c: sequences [chunk_first[c], chunk_first[c + 1])
  std::vector<Mat<F>> state;             // per chunk, between the stages
  std::vector<ReadingCache<F>> cache;
  std::vector<ChunkResult> results;

  void run_blocks(std::size_t c, std::size_t from, std::size_t to, std::optional<double> tau,
                  const std::vector<std::size_t>& attends, const std::atomic<bool>* stop);
  void compare(std::size_t c);
};

// Blocks [from, to) on chunk c. Touches nothing shared but the read-only model and data.
template <class F>
void FloatReplay<F>::Impl::run_blocks(std::size_t c, std::size_t from, std::size_t to, std::optional<double> tau,
                                      const std::vector<std::size_t>& attends, const std::atomic<bool>* stop) {
  const std::size_t first = chunk_first[c], last = chunk_first[c + 1], offset = seqs.begin[first];
  Mat<F>& X = state[c];
  for (std::size_t b = from; b < to; ++b) {
    if (stop && stop->load(std::memory_order_relaxed)) return;
    const auto& block = blocks[b];
    if (!block.identity_attention) {
      const bool count = collapse_block && b == *collapse_block && !attends.empty();
      for (std::size_t j = first; j < last; ++j)
        attend(block.sa, X, seqs.begin[j] - offset, seqs.begin[j + 1] - offset, tau, seqs.global[j],
               count ? &attends : nullptr, results[c].wrong_leader);
      cache[c].forget();
    }
    // The next layer reads the same direction with no attention between: readings kept fresh.
    const bool next_reads_same = block.direction && b + 1 < blocks.size() && blocks[b + 1].identity_attention &&
                                 blocks[b + 1].direction == block.direction;
    apply_feed_forward(block, X, cache[c], next_reads_same);
  }
}

// Each output of chunk c compared with its target; frees the chunk's state.
template <class F>
void FloatReplay<F>::Impl::compare(std::size_t c) {
  const std::size_t first = chunk_first[c], last = chunk_first[c + 1], offset = seqs.begin[first];
  ChunkResult& result = results[c];
  for (std::size_t j = first; j < last; ++j) {
    std::vector<Vec<double>> out, target;
    double scale = 1;
    for (const auto& y : data.pairs[seqs.chosen[j]].output) {
      target.push_back(vector_from_rational<double>(y));
      scale = std::max(scale, target.back().norm());
    }
    bool finite = true;
    for (std::size_t i = seqs.begin[j]; i < seqs.begin[j + 1]; ++i) {
      out.push_back(state[c].col(static_cast<Eigen::Index>(i - offset)).template cast<double>());
      if (!out.back().allFinite()) ++result.nonfinite, finite = false;
    }
    const double rel = finite ? hausdorff_distance(out, target) / scale : std::numeric_limits<double>::infinity();
    result.max_relative_hausdorff = std::max(result.max_relative_hausdorff, rel);
    if (!(rel <= tolerance)) ++result.sequences_off_target;
  }
  state[c] = Mat<F>();
  cache[c] = ReadingCache<F>();
}

template <class F>
FloatReplay<F>::FloatReplay(const Transformer<Rational>& model, const Dataset& data,
                            std::optional<std::size_t> collapse_block, double tolerance, double budget)
    : impl_(std::make_unique<Impl>(Impl{data, model.dimension, collapse_block, tolerance, {}, {}, 0, {}, {}, {}, {}, {}})) {
  Impl& m = *impl_;
  m.run.scalar = sizeof(F) == 8 ? "float64" : "float32";
  m.run.tolerance = tolerance;
  m.run.sequences = data.pairs.size();
  // Every sequence, or a sample within the work budget (deterministic: estimated multiply-adds,
  // not time).
  double per_token = 0;
  for (const auto& b : model.blocks) per_token += static_cast<double>(b.ff.U.size() + b.ff.W.size());
  std::vector<std::size_t> lengths, global_begin{0};
  for (const auto& pair : data.pairs) {
    lengths.push_back(pair.input.size());
    global_begin.push_back(global_begin.back() + pair.input.size());
  }
  const double whole = per_token * static_cast<double>(global_begin.back());
  const double allowed = whole <= kReplayCompleteFactor * budget ? whole : budget;
  m.seqs = {replay_sample(lengths, per_token, allowed, kReplaySampleSeed), {0}, {}};
  for (const std::size_t j : m.seqs.chosen) {
    m.seqs.begin.push_back(m.seqs.begin.back() + lengths[j]);
    m.seqs.global.push_back(global_begin[j]);
  }
  m.run.sequences_checked = m.seqs.chosen.size();
  if (m.run.sequences_checked < m.run.sequences) m.run.sample_seed = kReplaySampleSeed;

  auto cv = [](const Rational& x) { return to_float<F>(x); };
  std::vector<Vec<F>> directions;
  for (const auto& block : model.blocks) {
    m.blocks.push_back({block.sa.is_identity(),
                        {cv(block.sa.rho), to_float<F>(block.sa.A), to_float<F>(block.sa.V)},
                        cv(block.ff.eta), block.ff.U.dense().unaryExpr(cv), block.ff.W.dense().unaryExpr(cv), block.ff.b.unaryExpr(cv),
                        std::nullopt, {}, {}});
    find_direction(m.blocks.back(), directions);
    if (m.blocks.back().direction) m.blocks.back().U.resize(0, 0);  // its rows are slope_k r
  }
  m.prefix_end = first_block_needing_facts(m.blocks, collapse_block);

  // Chunks of whole sequences of about 2048 tokens (a chunk stays in cache), each run on its
  // own and reduced in chunk order: counts add up and maxima are order-free, so the result is
  // the same for every thread count and every order in which the chunks run.
  const auto& begin = m.seqs.begin;
  m.chunk_first = {0};
  while (m.chunk_first.back() + 1 < begin.size()) {
    const std::size_t first = m.chunk_first.back();
    std::size_t last = first + 1;
    while (last + 1 < begin.size() && begin[last + 1] - begin[first] <= 2048) ++last;
    m.chunk_first.push_back(last);
  }
  m.state.resize(chunks());
  m.cache.resize(chunks());
  m.results.resize(chunks());
}

template <class F>
FloatReplay<F>::~FloatReplay() = default;

template <class F>
std::size_t FloatReplay<F>::chunks() const {
  return impl_->chunk_first.size() - 1;
}

template <class F>
void FloatReplay<F>::run_prefix(std::size_t c, const std::atomic<bool>* stop) {
  Impl& m = *impl_;
  const std::size_t first = m.chunk_first[c], last = m.chunk_first[c + 1], offset = m.seqs.begin[first];
  Mat<F>& X = m.state[c];
  X.resize(m.dimension, static_cast<Eigen::Index>(m.seqs.begin[last] - offset));
  for (std::size_t j = first; j < last; ++j)
    for (std::size_t i = 0; i < m.data.pairs[m.seqs.chosen[j]].input.size(); ++i) {
      const Point x = m.data.pairs[m.seqs.chosen[j]].input[i];
      for (int k = 0; k < m.dimension; ++k)
        X(k, static_cast<Eigen::Index>(m.seqs.begin[j] + i - offset)) = to_float<F>(x[k]);
    }
  m.cache[c] = ReadingCache<F>();
  m.cache[c].t.resize(static_cast<std::size_t>(X.cols()));
  m.cache[c].stale.reserve(static_cast<std::size_t>(X.cols()));  // swapped with `active` each layer:
  m.cache[c].active.reserve(static_cast<std::size_t>(X.cols()));  // both keep room for every token
  m.run_blocks(c, 0, m.prefix_end, std::nullopt, {}, stop);
}

template <class F>
void FloatReplay<F>::run_rest(std::size_t c, std::optional<double> tau, const std::vector<std::size_t>& attends) {
  impl_->run_blocks(c, impl_->prefix_end, impl_->blocks.size(), tau, attends, nullptr);
  impl_->compare(c);
}

template <class F>
void FloatReplay<F>::put_chunk_result(ByteWriter& w, std::size_t c) const {
  const ChunkResult& r = impl_->results[c];
  w.put(std::bit_cast<std::uint64_t>(r.max_relative_hausdorff));
  w.put(std::uint64_t{r.sequences_off_target}), w.put(std::uint64_t{r.wrong_leader}), w.put(std::uint64_t{r.nonfinite});
}

template <class F>
void FloatReplay<F>::get_chunk_result(ByteReader& r, std::size_t c) {
  ChunkResult& result = impl_->results[c];
  result.max_relative_hausdorff = std::bit_cast<double>(r.u64());
  result.sequences_off_target = r.size(), result.wrong_leader = r.size(), result.nonfinite = r.size();
}

template <class F>
ReplayOutcome FloatReplay<F>::result(std::optional<double> tau) const {
  ReplayOutcome run = impl_->run;
  run.rule = tau ? "softmax" : "hardmax";
  for (const auto& r : impl_->results) {
    run.max_relative_hausdorff = std::max(run.max_relative_hausdorff, r.max_relative_hausdorff);
    run.sequences_off_target += r.sequences_off_target;
    run.wrong_leader += r.wrong_leader;
    run.nonfinite += r.nonfinite;
  }
  return run;
}

template <class F>
ReplayOutcome run_replay(const Transformer<Rational>& model, const Dataset& data, std::optional<double> tau,
                   std::optional<std::size_t> collapse_block, const std::vector<std::size_t>& attends,
                   double tolerance, unsigned threads, double budget) {
  FloatReplay<F> replay(model, data, collapse_block, tolerance, budget);
  for_each_index(replay.chunks(), threads, [&](std::size_t c) {
    replay.run_prefix(c);
    replay.run_rest(c, tau, attends);
  });
  return replay.result(tau);
}

template class FloatReplay<double>;
template class FloatReplay<float>;
template ReplayOutcome run_replay<double>(const Transformer<Rational>&, const Dataset&, std::optional<double>,
                                    std::optional<std::size_t>, const std::vector<std::size_t>&, double,
                                    unsigned, double);
template ReplayOutcome run_replay<float>(const Transformer<Rational>&, const Dataset&, std::optional<double>,
                                   std::optional<std::size_t>, const std::vector<std::size_t>&, double,
                                   unsigned, double);

}  // namespace seqi
