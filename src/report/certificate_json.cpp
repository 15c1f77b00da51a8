#include "seqi/report/certificate_json.hpp"

#include <cstdio>

#include "seqi/io/atomic_write.hpp"

namespace seqi {
namespace {

using nlohmann::json;


json dataset_claims(const Certificate& cert, const Dataset& data, const std::string& sha256) {
  std::size_t sum_n = 0;
  for (const auto& p : data.pairs) sum_n += p.input.size();
  return {{"sha256", sha256}, {"name", data.name}, {"N", cert.counts.N}, {"d", cert.counts.d},
          {"sum_n", sum_n}, {"sum_m", cert.counts.sum_m}, {"hypotheses", "H1-H5 hold after merging duplicate pairs"}};
}

// Counts of the certified transformer (lem:counts); `heads`: the largest number of rank-one
// terms of A in a block (one head each in the PyTorch layout).
json count_claims(const Counts& c) {
  return {{"blocks", c.blocks},           {"blocks_by_phase", c.blocks_by_phase},
          {"width", c.width},             {"heads", c.max_rank_A},
          {"max_rank_A", c.max_rank_A},   {"max_rank_V", c.max_rank_V},
          {"params", c.params},           {"params_dense", c.params_dense},
          {"param_norm_sq", to_string(c.param_norm_sq)}};
}

json bound_claims(const Certificate& cert) {
  const Counts& c = cert.counts;
  const bool softmax = cert.setting == Setting::softmax;
  return {{"blocks_hardmax", c.blocks_bound_hardmax},
          {"blocks_hardmax_formula", "2*sum_m + 2*N + 1"},
          {"blocks_softmax", c.blocks_bound_softmax},
          {"blocks_softmax_formula", "2*sum_m + 3*N"},
          {"blocks_within", c.blocks <= (softmax ? c.blocks_bound_softmax : c.blocks_bound_hardmax)},
          {"width", kTheoremWidthBound},
          {"width_within", c.width <= kTheoremWidthBound},
          {"params", c.params_bound},
          {"params_formula", "(20*d + 22)*sum_m"},
          {"params_within", c.params <= c.params_bound}};
}

// lem:tau-star: tau* >= min_j G_j / ln((n_j - 1) D_j / df) with the quantities it came from.
json softmax_claims(const Certificate& cert, const Dataset& data) {
  const SoftmaxFacts& f = *cert.softmax;
  json per = json::array();
  for (std::size_t j = 0; j < data.pairs.size(); ++j) {
    json s{{"n", data.pairs[j].input.size()}, {"G", nullptr}, {"D", nullptr}, {"tau", nullptr}};
    if (cert.lemma_p && j < cert.lemma_p->margin.size()) {
      if (cert.lemma_p->margin[j]) s["G"] = to_string(*cert.lemma_p->margin[j]);
      s["D"] = to_string(cert.lemma_p->spread[j]);
    }
    if (j < f.tau_per_sequence.size() && f.tau_per_sequence[j]) s["tau"] = to_string(*f.tau_per_sequence[j]);
    per.push_back(std::move(s));
  }
  const bool bounded = !f.tau_unbounded;
  return {{"tau", to_string(f.tau_checked)},
          {"tau_star_unbounded", f.tau_unbounded},
          {"tau_star_lower", bounded ? json(to_string(f.tau_star_lower)) : json(nullptr)},
          {"tau_star_formula", "min_j G_j / ln((n_j - 1) D_j / df) over j with (n_j - 1) D_j > df"},
          {"tau_within_tau_star", f.tau_unbounded || f.tau_checked <= f.tau_star_lower},
          {"binding_sequence", bounded ? json(f.binding_sequence + 1) : json(nullptr)},
          {"flat_halfwidth", to_string(f.flat_halfwidth)},
          {"max_enclosure_radius", to_string(f.max_enclosure_radius)},
          {"precision_bits", f.precision},
          {"per_sequence", std::move(per)}};
}

// A float statement (lem:float-run, float64 or float32): a claim beside the exact one, never
// part of the verdict.
json float_claims(const std::optional<FloatRunFacts>& statement) {
  if (!statement) return {{"shown", false}, {"delta", nullptr}, {"failure", "not bounded: the run stopped before"}};
  if (!statement->certified) return {{"shown", false}, {"delta", nullptr}, {"failure", statement->failure}};
  char buf[40];
  std::snprintf(buf, sizeof buf, "%.17g", statement->delta);  // round-trips to the same double
  return {{"shown", true}, {"delta", buf}, {"failure", nullptr}};
}

}  // namespace

json certificate_json(const RunReport& report, const Dataset& data, const std::string& dataset_sha256,
                      const std::string& model_sha256) {
  const Certificate& cert = report.certificate;
  json seqs = json::array();
  for (const auto& s : cert.sequences)
    seqs.push_back({{"n", s.n}, {"m", s.m}, {"verdict", s.matches ? "matches" : "mismatch"}});
  json checks = json::array();
  for (const auto& ch : cert.checks)
    checks.push_back({{"name", ch.name}, {"lemma", ch.lemma}, {"passed", ch.passed}, {"required", ch.required}});
  json j{{"format", kCertificateFormat},
         {"version", kCertificateVersion},
         {"seqi_version", SEQI_VERSION},
         {"setting", setting_name(cert.setting)},
         {"verified", cert.verified},
         {"dataset", dataset_claims(cert, data, dataset_sha256)},
         {"model", {{"sha256", model_sha256},
                    {"hashed", "the bytes verify --save-model M.json writes"},
                    {"seed", cert.construction ? json(cert.construction->seed) : json(nullptr)}}},
         {"counts", count_claims(cert.counts)},
         {"bounds", bound_claims(cert)},
         {"sequences", std::move(seqs)},
         {"softmax", cert.softmax ? softmax_claims(cert, data) : json(nullptr)},
         {"float64", float_claims(report.float_statement)},
         {"float32", float_claims(report.float32_statement)},
         {"checks", std::move(checks)}};
  return j;
}

void write_certificate_json(const json& certificate, const std::string& path) {
  write_file_atomically(path, "certificate", [&](std::ostream& out) { out << certificate.dump(1) << "\n"; });
}

}  // namespace seqi
