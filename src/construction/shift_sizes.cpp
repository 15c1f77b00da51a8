// rem:shift-sizes: the leader construction at several sizes of the sequence shift, the lightest kept.
#include "seqi/construction/shift_sizes.hpp"

#include <string>
#include <vector>

#include "seqi/core/parallel.hpp"

namespace seqi {

struct LeaderVariants::Variant {
  int halvings;
  Construction out;
  std::unique_ptr<LeaderConstruction> plan;  // builds into out
  std::optional<std::string> failure;        // why this size was passed over
  std::optional<Rational> norm;              // built: its ||theta||^2
  std::optional<Rational> abandoned_at;      // abandoned at this stored norm
};

namespace {

std::vector<int> sizes_to_try(const Dataset& data, const std::vector<int>& halvings) {
  if (data.total_input_tokens() <= kShiftSizeTokenLimit) return halvings;
  return {halvings.front()};
}

}  // namespace

LeaderVariants::LeaderVariants(const Dataset& data, const Construction& empty, unsigned threads,
                               const std::vector<int>& halvings)
    : phase_(build_phase_s(data, empty, threads, sizes_to_try(data, halvings))) {
  for (std::size_t i = 0; i < phase_.sizes.size(); ++i) {  // one size without a shift
    const int h = halvings[i];
    auto v = std::make_unique<Variant>(Variant{h, phase_.out, nullptr, std::nullopt, std::nullopt, std::nullopt});
    if (!phase_.sizes[i]) v->failure = "does not separate";
    if (h > 0 && phase_.shift_choice)  // without a shift every size is the unshifted construction
      v->out.record.choices[*phase_.shift_choice].what += ", v / 2^" + std::to_string(h);
    variants_.push_back(std::move(v));
  }
  // The sizes' plans are independent (each from its copy of Phase S's state): one size per
  // thread when there are several, else the one size on every thread.
  const std::size_t n = variants_.size();
  const unsigned per_plan = n > 1 ? 1 : threads;
  for_each_index(n, threads, [&](std::size_t i) {
    Variant& v = *variants_[i];
    if (v.failure) return;
    try {
      v.plan = std::make_unique<LeaderConstruction>(data, phase_, *phase_.sizes[i], v.out, per_plan);
    } catch (const ConstructionError& e) {
      if (i == 0) throw;
      v.failure = std::string("not built (") + e.what() + ")";
    }
  });
}

LeaderVariants::~LeaderVariants() = default;

std::optional<Rational> LeaderVariants::finish(const Execution& exec, const std::optional<Rational>& lighter_than) {
  std::optional<Rational> lightest_abandoned;
  std::optional<std::size_t> best;
  for (std::size_t i = 0; i < variants_.size(); ++i) {
    Variant& v = *variants_[i];
    if (!v.plan) continue;
    std::optional<Rational> budget = lighter_than;
    if (best && (!budget || *variants_[*best]->norm < *budget)) budget = variants_[*best]->norm;
    v.abandoned_at = v.plan->finish(exec, budget);
    v.plan.reset();
    if (v.abandoned_at) {
      if (!lightest_abandoned || *v.abandoned_at < *lightest_abandoned) lightest_abandoned = v.abandoned_at;
      continue;
    }
    v.norm = exact_norm_sq(v.out.model, exec.threads);  // Phase P stayed under the budget, C and I may not
    if (!best || *v.norm < *variants_[*best]->norm) best = i;
  }
  if (!best) return lightest_abandoned;
  best_ = *best;
  if (variants_.size() > 1) {
    std::string sizes;
    for (const auto& v : variants_) {
      const std::string size = v->halvings == 0 ? "v" : "v / 2^" + std::to_string(v->halvings);
      const std::string norm = v->failure ? *v->failure
                               : v->norm  ? approx_decimal(*v->norm, 4)
                                          : "at least " + approx_decimal(*v->abandoned_at, 4);
      sizes += (sizes.empty() ? "" : ", ") + size + " " + norm;
    }
    variants_[best_]->out.record.choices.push_back(
        {"sequence shift of the leader construction by least ||theta||^2 (rem:shift-sizes): " + sizes, 1, Integer(0)});
  }
  return std::nullopt;
}

Construction& LeaderVariants::built() { return variants_[best_]->out; }

}  // namespace seqi
