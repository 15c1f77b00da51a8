// The hardmax forward pass in exact rationals (def:model): a block is FF(SA(X)), with
// SA(X)_i = rho x_i + V m_i, m_i the average of the tokens x_l of largest score <A x_i, x_l>
// (ties averaged), and FF(x) = eta x + W relu(U x + b).
#include <algorithm>
#include <map>

#include "check.hpp"
#include "passes.hpp"

namespace check {
namespace {

Vec mean_of(const std::vector<Vec>& X, const std::vector<std::size_t>& which) {
  Vec m(X.front().size());
  for (std::size_t l : which)
    for (std::size_t i = 0; i < m.size(); ++i) m[i] += X[l][i];
  for (auto& c : m) c /= static_cast<unsigned long>(which.size());
  return m;
}

// Indices of the largest (sign > 0) or smallest (sign < 0) values; every index when sign == 0.
std::vector<std::size_t> extreme(const std::vector<Q>& v, int sign) {
  std::vector<std::size_t> best;
  for (std::size_t l = 0; l < v.size(); ++l) {
    if (!best.empty() && sign != 0) {
      const int c = cmp(v[l], v[best.front()]) * sign;
      if (c < 0) continue;
      if (c > 0) best.clear();
    }
    best.push_back(l);
  }
  return best;
}

// The tokens times the least common multiple L of their denominators: integers, whose dot
// products are L^2 > 0 times the tokens' (the same order, without a gcd per product).
std::vector<std::vector<mpz_class>> common_denominator(const std::vector<Vec>& X, mpz_class& L) {
  L = 1;
  for (const auto& x : X)
    for (const auto& c : x) mpz_lcm(L.get_mpz_t(), L.get_mpz_t(), c.get_den_mpz_t());
  std::vector<std::vector<mpz_class>> Z;
  for (const auto& x : X) {
    Z.emplace_back();
    for (const auto& c : x) Z.back().push_back(c.get_num() * (L / c.get_den()));
  }
  return Z;
}

// The averaged token m_i each token attends to.
std::vector<Vec> attended(const LowRank& A, const std::vector<Vec>& X) {
  std::vector<Vec> out;
  if (A.zero()) return std::vector<Vec>(X.size(), mean_of(X, extreme(std::vector<Q>(X.size()), 0)));  // all tie
  if (A.alpha == 0 && A.terms.size() == 1) {
    // <A x_i, x_l> = (q.x_i)(p.x_l): the argmax set depends only on the sign of q.x_i.
    std::vector<Q> read;
    for (const auto& x : X) read.push_back(dot(A.terms[0].first, x));
    const Vec up = mean_of(X, extreme(read, 1)), down = mean_of(X, extreme(read, -1)), all = mean_of(X, extreme(read, 0));
    for (const auto& x : X) {
      const int s = sgn(dot(A.terms[0].second, x));
      out.push_back(s > 0 ? up : s < 0 ? down : all);
    }
    return out;
  }
  // any other A: every score (all_scores: integer dot products when A = alpha I)
  for (const auto& scores : all_scores(A, X)) out.push_back(mean_of(X, extreme(scores, 1)));
  return out;
}

// sum_u W_u U_u^T = 0 and sum_u W_u b_u = 0, exactly. U_u = scale_u dir_u: the first sum is
// sum over directions of (sum of scale_u W_u over its units) dir^T, zero when each inner sum is;
// only otherwise is it summed entry by entry.
bool sums_vanish(const Block& b, const std::vector<std::size_t>& dir, const std::vector<Q>& scale) {
  const std::size_t d = b.W.size();
  std::map<std::size_t, Vec> per_dir;
  Vec offset(d);
  for (std::size_t u = 0; u < b.U.size(); ++u) {
    Vec& col = per_dir.try_emplace(dir[u], Vec(d)).first->second;
    for (std::size_t c = 0; c < d; ++c) col[c] += b.W[c][u] * scale[u], offset[c] += b.W[c][u] * b.b[u];
  }
  const auto zero = [](const Vec& v) { return std::all_of(v.begin(), v.end(), [](const Q& q) { return q == 0; }); };
  if (!zero(offset)) return false;
  if (std::all_of(per_dir.begin(), per_dir.end(), [&](const auto& e) { return zero(e.second); })) return true;
  for (std::size_t c = 0; c < d; ++c) {
    Vec linear(b.U.empty() ? 0 : b.U[0].size());
    for (std::size_t u = 0; u < b.U.size(); ++u)
      for (std::size_t j = 0; j < linear.size(); ++j) linear[j] += b.W[c][u] * b.U[u][j];
    if (!zero(linear)) return false;
  }
  return true;
}

}  // namespace

std::vector<std::vector<Q>> all_scores(const LowRank& A, const std::vector<Vec>& X) {
  std::vector<std::vector<Q>> s(X.size(), std::vector<Q>(X.size()));
  if (A.terms.empty()) {  // alpha <x_i, x_l> = alpha <z_i, z_l> / L^2
    mpz_class L;
    const std::vector<std::vector<mpz_class>> Z = common_denominator(X, L);
    const Q factor = A.alpha / Q(L * L);
    for (std::size_t i = 0; i < Z.size(); ++i)
      for (std::size_t l = i; l < Z.size(); ++l) {
        mpz_class g = 0;
        for (std::size_t c = 0; c < Z[i].size(); ++c) g += Z[i][c] * Z[l][c];
        s[i][l] = s[l][i] = factor * g;
      }
    return s;
  }
  for (std::size_t i = 0; i < X.size(); ++i) {
    const Vec Ax = A.apply(X[i]);
    for (std::size_t l = 0; l < X.size(); ++l) s[i][l] = dot(Ax, X[l]);
  }
  return s;
}

Q dot(const Vec& a, const Vec& b) {
  Q s = 0;
  for (std::size_t i = 0; i < a.size(); ++i)
    if (a[i] != 0 && b[i] != 0) s += a[i] * b[i];
  return s;
}

void hardmax_attention(const Block& b, std::vector<Vec>& X) {
  if (b.rho == 1 && b.V.zero()) return;  // every token unchanged
  const std::vector<Vec> m = attended(b.A, X);
  const Vec* last = nullptr;
  Vec shift;
  const bool keep = b.rho == 1;
  for (std::size_t i = 0; i < X.size(); ++i) {
    if (last == nullptr || m[i] != *last) shift = b.V.apply(m[i]), last = &m[i];
    for (std::size_t c = 0; c < X[i].size(); ++c)
      if (keep) X[i][c] += shift[c];
      else X[i][c] = b.rho * X[i][c] + shift[c];
  }
}

RowIds::RowIds(const Model& m) {
  std::map<Vec, std::size_t> seen;
  for (const auto& b : m.blocks) {
    id.emplace_back();
    scale.emplace_back();
    for (const auto& row : b.U) {
      const auto first = std::find_if(row.begin(), row.end(), [](const Q& c) { return c != 0; });
      const Q lambda = first == row.end() ? Q(1) : Q(abs(*first));
      Vec dir = row;
      for (auto& c : dir) c /= lambda;
      const auto [it, added] = seen.emplace(dir, dirs.size());
      if (added) dirs.push_back(std::move(dir));
      id.back().push_back(it->second);
      scale.back().push_back(lambda);
    }
  }
}

const Q& reading(const RowIds& ids, std::size_t r, const Vec& x, Readings& cache) {
  if (!cache.known[r]) cache.value[r] = dot(ids.dirs[r], x), cache.known[r] = true;
  return cache.value[r];
}

Readings empty_readings(const RowIds& ids) { return {std::vector<Q>(ids.dirs.size()), std::vector<bool>(ids.dirs.size())}; }

std::vector<FeedForwardPlan> feed_forward_plans(const Model& m, const RowIds& ids) {
  std::vector<FeedForwardPlan> plans;
  for (std::size_t k = 0; k < m.blocks.size(); ++k) plans.emplace_back(m.blocks[k], ids, k);
  return plans;
}

FeedForwardPlan::FeedForwardPlan(const Block& b, const RowIds& row_ids, std::size_t index)
    : block(b), ids(row_ids), k(index) {
  for (std::size_t u = 0; u < b.U.size(); ++u) {
    const std::size_t dir = ids.id[k][u];
    const Q threshold = -b.b[u] / ids.scale[k][u];
    auto it = std::find_if(rows.begin(), rows.end(), [&](const Row& r) { return r.dir == dir; });
    if (it == rows.end()) rows.push_back({dir, threshold, threshold});
    else it->least = std::min(it->least, threshold), it->most = std::max(it->most, threshold);
  }
  identity_when_all_active = b.eta == 1 && sums_vanish(b, ids.id[k], ids.scale[k]);
}

std::vector<Q> FeedForwardPlan::pre_activations(const Vec& x, Readings& cache) const {
  std::vector<Q> pre(block.U.size());
  for (std::size_t u = 0; u < block.U.size(); ++u) pre[u] = ids.scale[k][u] * reading(ids, ids.id[k][u], x, cache) + block.b[u];
  return pre;
}

void FeedForwardPlan::apply(Vec& x, Readings& cache) const {
  bool none = true, all = true;
  for (const Row& row : rows) {
    const Q& r = reading(ids, row.dir, x, cache);
    none = none && r <= row.least;
    all = all && r > row.most;
  }
  if (none && block.eta == 1) return;             // every unit off: x unchanged (exact)
  if (all && identity_when_all_active) return;  // every unit on: x unchanged (exact)
  const std::vector<Q> pre = pre_activations(x, cache);
  for (auto& c : x) c *= block.eta;
  for (std::size_t u = 0; u < pre.size(); ++u)
    if (pre[u] > 0)
      for (std::size_t c = 0; c < x.size(); ++c) x[c] += block.W[c][u] * pre[u];
  cache.clear();
}

namespace {

// Through the blocks of a run, one token: only the blocks whose hat meets its reading.
void walk_run(const Run& run, const std::vector<FeedForwardPlan>& ff, Vec& x, Readings& cache) {
  for (std::size_t k = run.begin; k < run.end; ++k) {
    const Q& r = reading(ff[k].ids, run.dir, x, cache);
    k = run.next(r, r, k);
    if (k < run.end) ff[k].apply(x, cache);
  }
}

}  // namespace

std::vector<std::string> hardmax_pass(const Model& m, const Dataset& data) {
  const RowIds ids(m);
  const std::vector<FeedForwardPlan> ff = feed_forward_plans(m, ids);
  const std::map<std::size_t, Run> runs = find_runs(m, ff);
  std::vector<std::string> verdicts;
  for (const auto& pair : data.pairs) {
    std::vector<Vec> X = pair.input.get();
    std::vector<Readings> cache(X.size(), empty_readings(ids));
    for (std::size_t k = 0; k < m.blocks.size(); ++k) {
      if (const auto run = runs.find(k); run != runs.end()) {
        for (std::size_t i = 0; i < X.size(); ++i) walk_run(run->second, ff, X[i], cache[i]);
        k = run->second.end - 1;
        continue;
      }
      if (!(m.blocks[k].rho == 1 && m.blocks[k].V.zero())) {
        hardmax_attention(m.blocks[k], X);
        for (auto& c : cache) c.clear();
      }
      for (std::size_t i = 0; i < X.size(); ++i) ff[k].apply(X[i], cache[i]);
    }
    verdicts.push_back(set_difference_text(std::move(X), pair.output.get()));
  }
  return verdicts;
}

}  // namespace check
