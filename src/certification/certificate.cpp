#include <algorithm>
#include <iterator>

#include "seqi/certification/certificate_checks.hpp"
#include "seqi/core/chunks.hpp"
#include "seqi/core/sharding.hpp"
#include "seqi/numbers/point_set.hpp"

namespace seqi {

void Certificate::conclude() {
  verified = std::all_of(checks.begin(), checks.end(), [](const Check& c) { return c.passed || !c.required; });
}

SequenceOutcome compare_as_sets(const std::vector<Point>& outputs, const Sequence& targets) {
  SequenceOutcome o{outputs.size(), targets.size(), false, "", {}};
  const auto produced = as_sorted_set(outputs), wanted = as_sorted_set(targets);
  for (const auto& p : produced)
    if (!set_contains(wanted, p)) return o.detail = "output token " + to_string(p) + " is not a target", o;
  for (const auto& y : wanted)
    if (!set_contains(produced, y)) return o.detail = "target " + to_string(y) + " is not produced", o;
  o.matches = true;
  std::vector<std::uint32_t> order(targets.size());  // target indices by lexicographic order
  for (std::size_t k = 0; k < order.size(); ++k) order[k] = static_cast<std::uint32_t>(k);
  std::stable_sort(order.begin(), order.end(),
                   [&](std::uint32_t a, std::uint32_t b) { return lex_less(targets[a], targets[b]); });
  o.target_of.reserve(outputs.size());
  for (const auto& p : outputs)  // present: every output token is a target
    o.target_of.push_back(*std::lower_bound(order.begin(), order.end(), p, [&](std::uint32_t k, const Point& q) {
      return lex_less(targets[k], q);
    }));
  return o;
}

std::size_t max_coordinate_bits(const TokenState& s, unsigned threads) {
  std::vector<std::size_t> bits(chunk_count(s.tokens.size(), threads), 0);
  for_each_chunk(s.tokens.size(), threads, [&](std::size_t c, std::size_t first, std::size_t last) {
    for (std::size_t i = first; i < last; ++i)
      for (Eigen::Index k = 0; k < s.tokens[i].size(); ++k) bits[c] = std::max(bits[c], bit_size(s.tokens[i][k]));
  });
  return bits.empty() ? 0 : *std::max_element(bits.begin(), bits.end());
}

std::string count_detail(std::size_t value, const char* op, std::size_t bound) {
  return std::to_string(value) + " " + op + " " + std::to_string(bound);
}

void add_shape_checks(Certificate& cert, bool required) {
  const Counts& c = cert.counts;
  const bool softmax = cert.setting == Setting::softmax;
  const std::size_t bound = softmax ? c.blocks_bound_softmax : c.blocks_bound_hardmax;
  cert.add({"feed-forward width <= 4", "def:model", c.width <= 4, required, count_detail(c.width, "<=", 4)});
  cert.add({"rank of low-rank parts of A, V <= 1", "def:model", c.max_rank_A <= 1 && c.max_rank_V <= 1, required,
            "A: " + std::to_string(c.max_rank_A) + ", V: " + std::to_string(c.max_rank_V)});
  cert.add({softmax ? "blocks <= 2 sum(m) + 3N (Thm 1.8)" : "blocks <= 2 sum(m) + 2N + 1 (Thm 1.6)", "lem:counts",
            c.blocks <= bound, required, count_detail(c.blocks, "<=", bound)});
  cert.add({"parameters <= (20d+22) sum(m)", "lem:counts", c.params <= c.params_bound, required,
            count_detail(c.params, "<=", c.params_bound)});
}

void add_interpolation_check(Certificate& cert, const Dataset& data, const std::vector<std::vector<Point>>& outputs,
                             const Execution& exec) {
  std::vector<SequenceOutcome> outcomes(data.pairs.size());
  for_each_index_shared(
      outcomes.size(), exec, [&](std::size_t j) { outcomes[j] = compare_as_sets(outputs[j], data.pairs[j].output.points()); },
      [&](ByteWriter& w, std::size_t j) {
        w.put(std::uint64_t{outcomes[j].n}), w.put(std::uint64_t{outcomes[j].m}), w.put(outcomes[j].matches);
        w.put(std::string_view(outcomes[j].detail));
        w.put(std::uint64_t{outcomes[j].target_of.size()});
        for (const std::uint32_t k : outcomes[j].target_of) w.put(std::uint64_t{k});
      },
      [&](ByteReader& r, std::size_t j) {
        outcomes[j].n = r.size(), outcomes[j].m = r.size(), outcomes[j].matches = r.flag();
        outcomes[j].detail = r.string();
        outcomes[j].target_of.resize(r.size());
        for (auto& k : outcomes[j].target_of) k = static_cast<std::uint32_t>(r.u64());
      });
  std::size_t failures = 0;
  std::string first;
  for (std::size_t j = 0; j < outcomes.size(); ++j) {
    if (!outcomes[j].matches && failures++ == 0) first = "sequence " + std::to_string(j + 1) + ": " + outcomes[j].detail;
    cert.sequences.push_back(std::move(outcomes[j]));
  }
  cert.add({"exact forward pass: T(X_j) = Y_j as sets for every j", "lem:interpolation", failures == 0, true,
            failures == 0 ? std::to_string(data.pairs.size()) + " of " + std::to_string(data.pairs.size()) + " sequences"
                          : std::to_string(failures) + " sequences differ; first: " + first});
}

void add_lemma_p_check(Certificate& cert, const TokenState& before_collapse, const Construction& built, bool brute,
                       const Execution& exec) {
  const auto& sa = built.model.blocks[built.record.collapse_block].sa;
  const bool scaled_identity = sa.A.terms.empty() && sa.A.alpha > 0;
  const auto& a = built.record.interpolation.a;
  cert.lemma_p = !scaled_identity ? LemmaPResult{false, "collapse attention is not alpha*I, alpha > 0", {}, {}, {}}
                 : brute          ? check_lemma_p_brute(before_collapse, built.record.placement, sa.A.alpha, a, exec)
                                  : check_lemma_p(before_collapse, built.record.placement, sa.A.alpha, a, exec);
  cert.add({std::string("Lemma P: unique best scores before the collapse") + (brute ? " (all scores)" : " (bounds)"),
            "lem:P", cert.lemma_p->ok, true, cert.lemma_p->ok ? "all sequences" : cert.lemma_p->failure});
}

PhaseSnapshot snapshot_of(const TokenState& s, const std::string& phase) {
  constexpr std::size_t kTokens = 40;
  PhaseSnapshot snap{phase, {}};
  for (std::size_t j = 0; j < std::min(kSnapshotSequences, s.sequences()); ++j) {
    snap.sequences.emplace_back();
    for (std::size_t i = s.begin[j]; i < std::min(s.begin[j + 1], s.begin[j] + kTokens); ++i)
      snap.sequences.back().emplace_back(s.tokens[i][0].convert_to<double>(), s.tokens[i][1].convert_to<double>());
  }
  return snap;
}

void record_phase_end(Certificate& cert, const TokenState& s, const std::string& phase, unsigned threads) {
  cert.max_bits_by_phase[phase] = max_coordinate_bits(s, threads);
  cert.snapshots.push_back(snapshot_of(s, phase));
}

void follow_exactly(FloatRunBound& bound, std::size_t b, ExactForward& pass, const Block<Rational>& block,
                    const std::vector<std::size_t>* attends, const std::function<void()>& after_attention) {
  (void)bound.block(
      b,
      [&](const std::vector<std::size_t>&) {
        if (attends)
          pass.apply_attention_with_proven_argmax(block.sa, *attends);
        else
          pass.apply_attention(block.sa);
        if (after_attention) after_attention();
        return std::optional<std::string>();
      },
      [&](const std::optional<OneDirectionForm>&) {
        pass.apply_feed_forward(block.ff);
        return std::optional<std::string>();
      });
}

void run_exact_blocks(RunReport& report, ExactForward& pass, const Transformer<Rational>& model, std::size_t from,
                      std::size_t to, const Execution& exec, FloatRunBound* bound,
                      const std::function<void(std::size_t)>& after_attention) {
  const auto& blocks = model.blocks;
  std::size_t hats = 0;
  std::optional<std::pair<std::size_t, Rational>> narrow;  // first hat of S or P without the margin
  for (std::size_t b = from; b < to; ++b) {
    const std::function<void()> between = after_attention ? std::function<void()>([&] { after_attention(b); })
                                                          : std::function<void()>();
    if (bound) {
      follow_exactly(*bound, b, pass, blocks[b], nullptr, between);
    } else {
      pass.apply_attention(blocks[b].sa);
      if (between) between();
      pass.apply_feed_forward(blocks[b].ff);
    }
    if (const auto& w = pass.last_relative_window()) note_relative_window(report.measurements, phase_name(blocks[b].phase), *w);
    const auto& m = pass.last_centre_margin();
    if (m && (blocks[b].phase == Phase::separation || blocks[b].phase == Phase::placement)) {
      ++hats;
      if (*m < 2 && !narrow) narrow = {b, *m};
    }
    progress_advance(exec.progress);
    if (b + 1 == blocks.size() || blocks[b + 1].phase != blocks[b].phase)
      record_phase_end(report.certificate, pass.state(), phase_name(blocks[b].phase), exec.threads);
  }
  if (hats > 0)
    report.certificate.add({"every hat of Phases S and P leaves a decision margin: no other reading within twice its half-width "
              "of its centre",
              "lem:hat-margin", !narrow, false,
              narrow ? "block " + std::to_string(narrow->first + 1) + ": a reading at " + approx_decimal(narrow->second) +
                           " half-widths from the centre"
                     : std::to_string(hats) + " hats"});
}

std::vector<std::vector<Point>> outputs_of(const TokenState& s) {
  std::vector<std::vector<Point>> out;
  for (std::size_t j = 0; j < s.sequences(); ++j)
    out.emplace_back(s.tokens.begin() + static_cast<std::ptrdiff_t>(s.begin[j]),
                     s.tokens.begin() + static_cast<std::ptrdiff_t>(s.begin[j + 1]));
  return out;
}

std::vector<std::vector<Point>> outputs_of(TokenState&& s) {
  std::vector<std::vector<Point>> out;
  for (std::size_t j = 0; j < s.sequences(); ++j)
    out.emplace_back(std::make_move_iterator(s.tokens.begin() + static_cast<std::ptrdiff_t>(s.begin[j])),
                     std::make_move_iterator(s.tokens.begin() + static_cast<std::ptrdiff_t>(s.begin[j + 1])));
  s.tokens = {};
  return out;
}

}  // namespace seqi
