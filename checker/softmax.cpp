// The softmax pass at temperature tau. A token is x = c + e v with c, v exact rational vectors
// and e an unknown real in [lo, hi] (v empty: x = c exactly). The only rounded operation is
// exp, enclosed by MPFR rounding down and up; every other step is exact. A feed-forward layer
// whose every unit has a decided sign on the enclosure is affine there, so it maps c + e v to
// c' + e v' exactly; v' = 0 makes the token exact (the flat hats of lem:direction-carrying).
#include <algorithm>

#include <mpfr.h>

#include "check.hpp"
#include "passes.hpp"

namespace check {
namespace {

struct Token {
  Vec c, v;  // v empty: exact
  Q lo, hi;
  Readings cache, v_cache;  // readings of c and of v
};

// [exp(a)] for a rational a <= 0, as exact rationals: exp is increasing, so rounding the
// argument and the result down (up) gives a lower (upper) bound. Below 2^-(2 bits) the bounds
// are widened to [0, 2^-(2 bits)] (still an enclosure), so no rational grows to millions of bits.
std::pair<Q, Q> exp_bounds(const Q& a, unsigned bits) {
  mpfr_t x;
  mpfr_init2(x, bits);
  std::pair<Q, Q> out;
  mpfr_set_q(x, a.get_mpq_t(), MPFR_RNDU);
  mpfr_exp(x, x, MPFR_RNDU);
  if (mpfr_get_exp(x) < -2 * static_cast<long>(bits)) {
    mpfr_clear(x);
    mpz_class floor_den = 1;
    floor_den <<= 2 * static_cast<mp_bitcnt_t>(bits);
    return {Q(0), Q(mpz_class(1), floor_den)};
  }
  mpfr_get_q(out.second.get_mpq_t(), x);
  mpfr_set_q(x, a.get_mpq_t(), MPFR_RNDD);
  mpfr_exp(x, x, MPFR_RNDD);
  mpfr_get_q(out.first.get_mpq_t(), x);
  mpfr_clear(x);
  return out;
}

struct Sequence {
  std::vector<Token> X;
  bool exact() const {
    for (const auto& t : X)
      if (!t.v.empty()) return false;
    return true;
  }
  std::vector<Vec> points() const {
    std::vector<Vec> out;
    for (const auto& t : X) out.push_back(t.c);
    return out;
  }
};

// Softmax attention with V = p q^T on exact tokens: SA_i = rho x_i + p (q.m_i), m_i the
// softmax average. q.m_i - t_ref = sum_l w_l (t_l - t_ref) / sum_l w_l with t_l = q.x_l,
// w_l = exp((s_il - s_max)/tau) in [lo_l, hi_l] (w_l = 1 on the best scores), t_ref the mean of
// t over the best scores (their terms cancel exactly).
void softmax_rank_one(const Block& b, Sequence& s, const Q& tau, unsigned bits, std::optional<Q>& gap, Q& spread) {
  const auto& [p, q] = b.V.terms.front();
  const std::vector<Vec> X = s.points();
  std::vector<Q> t;
  for (const auto& x : X) t.push_back(dot(q, x));
  spread = *std::max_element(t.begin(), t.end()) - *std::min_element(t.begin(), t.end());
  const std::vector<std::vector<Q>> scores = all_scores(b.A, X);
  for (std::size_t i = 0; i < X.size(); ++i) {
    const std::vector<Q>& score = scores[i];
    const Q best = *std::max_element(score.begin(), score.end());
    Q t_ref = 0, second;
    std::size_t ties = 0;
    bool has_second = false;
    for (std::size_t l = 0; l < X.size(); ++l)
      if (score[l] == best) t_ref += t[l], ++ties;
      else if (!has_second || score[l] > second) second = score[l], has_second = true;
    t_ref /= static_cast<unsigned long>(ties);
    const Q g = ties > 1 ? Q(0) : has_second ? Q(best - second) : Q(0);
    if (X.size() > 1 && (!gap || g < *gap)) gap = g;
    Q num_lo = 0, num_hi = 0, z_lo = ties, z_hi = ties;
    for (std::size_t l = 0; l < X.size(); ++l) {
      if (score[l] == best) continue;
      const auto [w_lo, w_hi] = exp_bounds((score[l] - best) / tau, bits);
      const Q diff = t[l] - t_ref;
      z_lo += w_lo, z_hi += w_hi;
      num_lo += diff * (diff >= 0 ? w_lo : w_hi);
      num_hi += diff * (diff >= 0 ? w_hi : w_lo);
    }
    // quotient of [num_lo, num_hi] by [z_lo, z_hi], z_lo >= ties >= 1
    const Q e_lo = num_lo / (num_lo >= 0 ? z_hi : z_lo), e_hi = num_hi / (num_hi >= 0 ? z_lo : z_hi);
    Token& out = s.X[i];
    for (std::size_t c = 0; c < out.c.size(); ++c) out.c[c] = b.rho * out.c[c] + p[c] * t_ref;
    if (e_lo != 0 || e_hi != 0) out.v = p, out.lo = e_lo, out.hi = e_hi;
  }
}

// The attention of block k; "" or why it could not be enclosed.
std::string softmax_attention(const Block& b, Sequence& s, const Q& tau, unsigned bits, std::optional<Q>& gap,
                              std::optional<Q>& spread) {
  if (b.rho == 1 && b.V.zero()) return "";
  if (b.V.zero()) {  // SA(x) = rho x, whatever the weights
    for (auto& t : s.X) {
      for (auto& c : t.c) c *= b.rho;
      for (auto& c : t.v) c *= b.rho;
    }
    return "";
  }
  if (!s.exact()) return "attention on a token that is enclosed, not exact";
  std::vector<Vec> X = s.points();
  if (b.A.zero() || X.size() == 1) {  // weights exactly 1/n (or 1): the hardmax value
    hardmax_attention(b, X);
    for (std::size_t i = 0; i < X.size(); ++i) s.X[i].c = std::move(X[i]);
    return "";
  }
  if (b.V.alpha != 0 || b.V.terms.size() != 1) return "softmax weights are not exact and V is not rank one";
  Q sp;
  const bool first = !spread;
  std::optional<Q> g;
  softmax_rank_one(b, s, tau, bits, g, sp);
  if (first) gap = g, spread = sp;
  return "";
}

// x = c + e v through one feed-forward layer; "" or the undecided unit. Every unit's sign is
// decided first, then the token is updated in place (left alone, caches and all, when every
// unit is off and eta = 1).
std::string feed_forward(const FeedForwardPlan& plan, Token& t) {
  const Block& b = plan.block;
  if (t.v.empty()) return plan.apply(t.c, t.cache), "";
  const std::vector<Q> p0 = plan.pre_activations(t.c, t.cache);
  std::vector<Q> p1(p0.size());
  std::vector<std::size_t> on;
  for (std::size_t u = 0; u < p0.size(); ++u) {
    p1[u] = plan.ids.scale[plan.k][u] * reading(plan.ids, plan.ids.id[plan.k][u], t.v, t.v_cache);
    const Q a = p0[u] + t.lo * p1[u], z = p0[u] + t.hi * p1[u];
    if (a <= 0 && z <= 0) continue;  // off on the whole enclosure
    if (a < 0 || z < 0) return "unit " + std::to_string(u + 1) + " changes sign on the enclosure";
    on.push_back(u);  // on on the whole enclosure
  }
  if (on.empty() && b.eta == 1) return "";
  for (std::size_t i = 0; i < t.c.size(); ++i) {
    if (b.eta != 1) t.c[i] *= b.eta, t.v[i] *= b.eta;
    for (std::size_t u : on) t.c[i] += b.W[i][u] * p0[u], t.v[i] += b.W[i][u] * p1[u];
  }
  t.cache.clear();
  t.v_cache.clear();
  if (std::all_of(t.v.begin(), t.v.end(), [](const Q& x) { return x == 0; })) t.v.clear();
  return "";
}

// Through the blocks of a run, one token: only the blocks whose hat meets its readings
// c.dir + e v.dir, e in [lo, hi]. "" or "block K feed-forward, token I: why".
std::string walk_run(const Run& run, const std::vector<FeedForwardPlan>& ff, Token& t, std::size_t i) {
  for (std::size_t k = run.begin; k < run.end; ++k) {
    const RowIds& ids = ff[k].ids;
    Q rmin = reading(ids, run.dir, t.c, t.cache), rmax = rmin;
    if (!t.v.empty()) {
      const Q& rv = reading(ids, run.dir, t.v, t.v_cache);
      const Q a = rmin + t.lo * rv, z = rmin + t.hi * rv;
      rmin = std::min(a, z), rmax = std::max(a, z);
    }
    k = run.next(rmin, rmax, k);
    if (k == run.end) break;
    if (auto w = feed_forward(ff[k], t); !w.empty())
      return "block " + std::to_string(k + 1) + " feed-forward, token " + std::to_string(i + 1) + ": " + w;
  }
  return "";
}

}  // namespace

SoftmaxOutcome softmax_pass(const Model& m, const Dataset& data, const Q& tau, unsigned bits) {
  const RowIds ids(m);
  const std::vector<FeedForwardPlan> ff = feed_forward_plans(m, ids);
  const std::map<std::size_t, Run> runs = find_runs(m, ff);
  SoftmaxOutcome out;
  for (const auto& pair : data.pairs) {
    Sequence s;
    for (const auto& x : pair.input.get()) s.X.push_back({x, {}, 0, 0, empty_readings(ids), empty_readings(ids)});
    std::optional<Q> gap, spread;
    std::string why;
    for (std::size_t k = 0; k < m.blocks.size() && why.empty(); ++k) {
      if (const auto run = runs.find(k); run != runs.end()) {
        for (std::size_t i = 0; i < s.X.size() && why.empty(); ++i) why = walk_run(run->second, ff, s.X[i], i);
        k = run->second.end - 1;
        continue;
      }
      if (auto w = softmax_attention(m.blocks[k], s, tau, bits, gap, spread); !w.empty())
        why = "block " + std::to_string(k + 1) + " attention: " + w;
      if (!(m.blocks[k].rho == 1 && m.blocks[k].V.zero()))
        for (auto& t : s.X) t.cache.clear(), t.v_cache.clear();
      for (std::size_t i = 0; i < s.X.size() && why.empty(); ++i)
        if (auto w = feed_forward(ff[k], s.X[i]); !w.empty())
          why = "block " + std::to_string(k + 1) + " feed-forward, token " + std::to_string(i + 1) + ": " + w;
    }
    for (std::size_t i = 0; i < s.X.size() && why.empty(); ++i)
      if (!s.X[i].v.empty()) why = "output token " + std::to_string(i + 1) + " is enclosed, not exact";
    out.verdicts.push_back(why.empty() ? set_difference_text(s.points(), pair.output.get()) : why);
    out.gap.push_back(gap);
    out.spread.push_back(spread);
  }
  return out;
}

Q ln_upper(const Q& x, unsigned bits) {
  mpfr_t y;
  mpfr_init2(y, bits);
  mpfr_set_q(y, x.get_mpq_t(), MPFR_RNDU);
  mpfr_log(y, y, MPFR_RNDU);  // log is increasing: an upper bound
  Q out;
  mpfr_get_q(out.get_mpq_t(), y);
  mpfr_clear(y);
  return out;
}

}  // namespace check
