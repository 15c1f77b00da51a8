#include "seqi/certification/conditioning.hpp"

#include <algorithm>
#include <vector>

#include "seqi/core/sharding.hpp"
#include "seqi/numbers/exact_sum.hpp"

namespace seqi {
namespace {

Rational max_abs(const Rational& m, const Rational& x) { return std::max(m, Rational(abs(x))); }

template <class M>
Rational max_abs_entry(Rational m, const M& a) {
  for (Eigen::Index i = 0; i < a.size(); ++i) m = max_abs(m, a.data()[i]);
  return m;
}

Rational max_abs_entry(Rational m, const StructuredMatrix<Rational>& s) {
  m = max_abs(m, s.alpha);
  for (const auto& t : s.terms) m = max_abs_entry(max_abs_entry(m, t.p), t.q);
  return m;
}

Rational max_abs_entry(Rational m, const FactoredMatrix<Rational>& a) { return max_abs_entry(std::move(m), a.dense()); }

PhaseConditioning& phase_entry(ConditioningReport& rep, const std::string& phase) {
  for (auto& p : rep.phases)
    if (p.phase == phase) return p;
  rep.phases.push_back({phase, 0, 0, std::nullopt});
  return rep.phases.back();
}

// One block's share of the report.
struct BlockWeights {
  Rational sa_norm_sq, ff_norm_sq, sa_max, ff_max;
};

BlockWeights block_weights(const Block<Rational>& block) {
  BlockWeights w;
  w.sa_max = max_abs_entry(max_abs_entry(abs(block.sa.rho), block.sa.A), block.sa.V);
  w.ff_max = max_abs_entry(max_abs_entry(max_abs_entry(max_abs(0, block.ff.eta), block.ff.U), block.ff.b), block.ff.W);
  w.sa_norm_sq = block.sa.stored_norm_sq();
  w.ff_norm_sq = block.ff.stored_norm_sq();
  return w;
}

}  // namespace

ConditioningReport weight_conditioning(const Transformer<Rational>& model, std::optional<std::size_t> collapse_block,
                                       const Execution& exec) {
  std::vector<BlockWeights> w = shard_map<BlockWeights>(
      model.blocks.size(), exec, [&](std::size_t b) { return block_weights(model.blocks[b]); },
      [](ByteWriter& out, const BlockWeights& x) {
        out.put(x.sa_norm_sq), out.put(x.ff_norm_sq), out.put(x.sa_max), out.put(x.ff_max);
      },
      [](ByteReader& in) {
        BlockWeights x;
        x.sa_norm_sq = in.rational(), x.ff_norm_sq = in.rational(), x.sa_max = in.rational(), x.ff_max = in.rational();
        return x;
      });
  ConditioningReport rep;  // phases appear in block order; sums are exact (exact_sum)
  std::vector<std::vector<Rational>> phase_terms;
  const auto add = [&](const std::string& phase, Rational norm_sq, const Rational& max_weight) {
    auto& p = phase_entry(rep, phase);
    const auto k = static_cast<std::size_t>(&p - rep.phases.data());
    if (phase_terms.size() <= k) phase_terms.resize(k + 1);
    p.max_abs_weight = std::max(p.max_abs_weight, max_weight);
    rep.max_abs_weight = std::max(rep.max_abs_weight, max_weight);
    phase_terms[k].push_back(std::move(norm_sq));
  };
  for (std::size_t b = 0; b < model.blocks.size(); ++b) {
    const bool collapse = collapse_block && b == *collapse_block;
    const std::string phase = phase_name(model.blocks[b].phase);
    add(collapse ? "collapse" : phase, std::move(w[b].sa_norm_sq), w[b].sa_max);
    add(phase, std::move(w[b].ff_norm_sq), w[b].ff_max);
  }
  std::vector<Rational> phase_sums;
  for (std::size_t k = 0; k < phase_terms.size(); ++k) {
    rep.phases[k].norm_sq = exact_sum(std::move(phase_terms[k]));
    phase_sums.push_back(rep.phases[k].norm_sq);
  }
  rep.norm_sq = exact_sum(std::move(phase_sums));
  return rep;
}

void note_relative_window(ConditioningReport& rep, const std::string& phase, const Rational& margin) {
  auto& p = phase_entry(rep, phase);
  if (!p.relative_window || margin < *p.relative_window) p.relative_window = margin;
}

void add_construction_margins(ConditioningReport& rep, const Dataset& data, const ConstructionRecord& record,
                              const TokenState& before_collapse, const LemmaPResult& lemma_p) {
  // Lemma P: certified margin G_j against the largest score |u|^2 of the sequence (lem:relative-margins).
  for (std::size_t j = 0; j < before_collapse.sequences() && j < lemma_p.margin.size(); ++j) {
    if (!lemma_p.margin[j]) continue;
    Rational score = 0;
    for (std::size_t i = before_collapse.begin[j]; i < before_collapse.begin[j + 1]; ++i)
      score = std::max(score, norm_sq(before_collapse.tokens[i]));
    if (score == 0) continue;
    const Rational rel = *lemma_p.margin[j] / score;
    if (!rep.lemma_p_relative || rel < *rep.lemma_p_relative) rep.lemma_p_relative = rel;
  }
  const auto& in = record.interpolation;
  if (in.z.empty()) return;
  Rational zmax = 0, lo = in.z.front(), hi = in.z.front();
  for (const auto& z : in.z) zmax = max_abs(zmax, z), lo = std::min(lo, z), hi = std::max(hi, z);
  for (const auto& pair : data.pairs)
    for (const auto& y : pair.output) {
      const Rational t = dot(in.reading, y);
      lo = std::min(lo, t), hi = std::max(hi, t);
    }
  if (in.z.size() > 1 && zmax > 0) rep.collapse_relative = in.gap / zmax;
  // Largest distance of a reading from a window centre z_s: max(hi - min z, max z - lo) <= hi - lo.
  Rational zlo = *std::min_element(in.z.begin(), in.z.end()), zhi = *std::max_element(in.z.begin(), in.z.end());
  const Rational span = std::max(hi - zlo, zhi - lo);
  if (span > 0) rep.flat_window_relative = in.df / span;
}

}  // namespace seqi
