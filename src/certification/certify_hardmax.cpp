#include <algorithm>

#include "seqi/certification/certificate.hpp"
#include "seqi/numbers/point_set.hpp"

namespace seqi {
namespace {

std::string count_detail(std::size_t value, const char* op, std::size_t bound) {
  return std::to_string(value) + " " + op + " " + std::to_string(bound);
}

// Checks on the shape of any model: width and ranks (def:model), blocks against Thm 1.6.
void add_shape_checks(Certificate& cert, bool required) {
  const Counts& c = cert.counts;
  cert.add({"feed-forward width <= 4", "def:model", c.width <= 4, required, count_detail(c.width, "<=", 4)});
  cert.add({"rank of low-rank parts of A, V <= 1", "def:model", c.max_rank_A <= 1 && c.max_rank_V <= 1, required,
            "A: " + std::to_string(c.max_rank_A) + ", V: " + std::to_string(c.max_rank_V)});
  cert.add({"blocks <= 2 sum(m) + 2N + 1 (Thm 1.6)", "lem:counts", c.blocks <= c.blocks_bound_hardmax, required,
            count_detail(c.blocks, "<=", c.blocks_bound_hardmax)});
  cert.add({"parameters <= (20d+22) sum(m)", "lem:counts", c.params <= c.params_bound, required,
            count_detail(c.params, "<=", c.params_bound)});
}

// Per-sequence outcomes and the interpolation check.
void add_interpolation_check(Certificate& cert, const Dataset& data, const TokenState& final_state) {
  std::size_t failures = 0;
  std::string first;
  for (std::size_t j = 0; j < data.pairs.size(); ++j) {
    std::vector<Point> out(final_state.tokens.begin() + static_cast<std::ptrdiff_t>(final_state.begin[j]),
                           final_state.tokens.begin() + static_cast<std::ptrdiff_t>(final_state.begin[j + 1]));
    auto outcome = compare_as_sets(out, data.pairs[j].output);
    if (!outcome.matches && failures++ == 0) first = "sequence " + std::to_string(j + 1) + ": " + outcome.detail;
    cert.sequences.push_back(std::move(outcome));
  }
  cert.add({"exact forward pass: T(X_j) = Y_j as sets for every j", "lem:interpolation", failures == 0, true,
            failures == 0 ? std::to_string(data.pairs.size()) + " of " + std::to_string(data.pairs.size()) + " sequences"
                          : std::to_string(failures) + " sequences differ; first: " + first});
}

}  // namespace

void Certificate::conclude() {
  verified = std::all_of(checks.begin(), checks.end(), [](const Check& c) { return c.passed || !c.required; });
}

SequenceOutcome compare_as_sets(const std::vector<Point>& outputs, const Sequence& targets) {
  SequenceOutcome o{outputs.size(), targets.size(), false, ""};
  const auto produced = as_sorted_set(outputs), wanted = as_sorted_set(targets);
  for (const auto& p : produced)
    if (!set_contains(wanted, p)) return o.detail = "output token " + to_string(p) + " is not a target", o;
  for (const auto& y : wanted)
    if (!set_contains(produced, y)) return o.detail = "target " + to_string(y) + " is not produced", o;
  o.matches = true;
  return o;
}

std::size_t max_coordinate_bits(const TokenState& s) {
  std::size_t bits = 0;
  for (const auto& x : s.tokens)
    for (Eigen::Index k = 0; k < x.size(); ++k) bits = std::max(bits, bit_size(x[k]));
  return bits;
}

Certificate certify_construction_hardmax(const Dataset& data, const Construction& built, bool brute) {
  Certificate cert;
  cert.setting = "hardmax";
  cert.record = built.record;
  cert.counts = count_model(built.model, data.pairs.size(), data.sum_m());
  add_shape_checks(cert, true);
  const auto predicted = predicted_construction_params(cert.counts.d, cert.counts.sum_m,
                                                       built.record.separation.shift_used,
                                                       built.record.separation.lifts);
  cert.add({"parameters = (14d+15) sum(m) + 4d + 1 + 2d[shift] + (6d+7) K", "lem:counts",
            cert.counts.params == predicted, true, count_detail(cert.counts.params, "=", predicted)});

  ExactForward pass(inputs_of(data));
  cert.max_bits_by_phase["input"] = max_coordinate_bits(pass.state());
  const auto& blocks = built.model.blocks;
  for (std::size_t b = 0; b < blocks.size(); ++b) {
    if (b == built.record.collapse_block) {
      const auto& sa = blocks[b].sa;
      const bool scaled_identity = sa.A.terms.empty() && sa.A.alpha > 0;
      const auto& a = built.record.interpolation.a;
      cert.lemma_p = !scaled_identity ? LemmaPResult{false, "collapse attention is not alpha*I, alpha > 0", {}, {}, {}}
                     : brute ? check_lemma_p_brute(pass.state(), built.record.placement, sa.A.alpha, a)
                             : check_lemma_p(pass.state(), built.record.placement, sa.A.alpha, a);
      cert.add({std::string("Lemma P: unique best scores before the collapse") + (brute ? " (all scores)" : " (bounds)"),
                "lem:P", cert.lemma_p->ok, true, cert.lemma_p->ok ? "all sequences" : cert.lemma_p->failure});
    }
    pass.apply_block(blocks[b]);
    if (b + 1 == blocks.size() || blocks[b + 1].phase != blocks[b].phase)
      cert.max_bits_by_phase[phase_name(blocks[b].phase)] = max_coordinate_bits(pass.state());
  }
  add_interpolation_check(cert, data, pass.state());
  cert.stats = pass.stats();
  cert.conclude();
  return cert;
}

Certificate certify_model_hardmax(const Dataset& data, const Transformer<Rational>& model) {
  Certificate cert;
  cert.setting = "hardmax";
  cert.counts = count_model(model, data.pairs.size(), data.sum_m());
  add_shape_checks(cert, false);
  ExactForward pass(inputs_of(data));
  for (const auto& b : model.blocks) pass.apply_block(b);
  add_interpolation_check(cert, data, pass.state());
  cert.stats = pass.stats();
  cert.conclude();
  return cert;
}

}  // namespace seqi
