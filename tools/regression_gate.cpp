#include "regression_gate.hpp"

#include <filesystem>

#include "seqi/io/dataset_json.hpp"
#include "seqi/io/exact_json.hpp"
#include "seqi/io/random_dataset.hpp"
#include "seqi/io/read_file.hpp"
#include "seqi/io/sha256.hpp"

namespace seqi {

RegressionRecord regression_record(const std::string& dataset, const Certificate& hardmax, const Certificate& softmax) {
  const Counts& c = hardmax.counts;
  RegressionRecord r;
  r.dataset = dataset;
  r.verified_hardmax = hardmax.verified;
  r.verified_softmax = softmax.verified;
  r.N = c.N;
  r.d = c.d;
  r.sum_m = c.sum_m;
  r.blocks = c.blocks;
  r.blocks_bound_hardmax = c.blocks_bound_hardmax;
  r.blocks_bound_softmax = c.blocks_bound_softmax;
  r.width = c.width;
  r.params = c.params;
  r.params_bound = c.params_bound;
  r.param_norm_sq_sha256 = sha256_hex(to_string(c.param_norm_sq));
  if (softmax.softmax)
    r.tau_star_lower = softmax.softmax->tau_unbounded ? "unbounded" : to_string(softmax.softmax->tau_star_lower);
  return r;
}

std::vector<std::string> bound_violations(const RegressionRecord& r) {
  std::vector<std::string> out;
  auto fail = [&](const std::string& field, const std::string& what) { out.push_back(r.dataset + ": " + field + ": " + what); };
  // Recompute the theorems' bounds from N and sum(m): a record cannot carry a loosened bound.
  const std::size_t hard = 2 * r.sum_m + 2 * r.N + 1, soft = 2 * r.sum_m + 3 * r.N;
  if (r.blocks_bound_hardmax != hard) fail("blocks_bound_hardmax", std::to_string(r.blocks_bound_hardmax) + " is not 2 sum(m) + 2N + 1 = " + std::to_string(hard));
  if (r.blocks_bound_softmax != soft) fail("blocks_bound_softmax", std::to_string(r.blocks_bound_softmax) + " is not 2 sum(m) + 3N = " + std::to_string(soft));
  if (r.blocks > hard) fail("blocks", std::to_string(r.blocks) + " exceeds the Thm 1.6 bound " + std::to_string(hard));
  if (r.blocks > soft) fail("blocks", std::to_string(r.blocks) + " exceeds the Thm 1.8 bound " + std::to_string(soft));
  if (r.width > 4) fail("width", std::to_string(r.width) + " exceeds 4");
  const std::size_t pbound = (20 * r.d + 22) * r.sum_m;
  if (r.params > pbound) fail("params", std::to_string(r.params) + " exceeds (20d+22) sum(m) = " + std::to_string(pbound));
  if (!r.verified_hardmax) fail("verified_hardmax", "the dataset is no longer verified (hardmax)");
  if (!r.verified_softmax) fail("verified_softmax", "the dataset is no longer verified (softmax)");
  return out;
}

nlohmann::json to_json(const RegressionRecord& r) {
  return {{"dataset", r.dataset},
          {"verified_hardmax", r.verified_hardmax},
          {"verified_softmax", r.verified_softmax},
          {"N", r.N},
          {"d", r.d},
          {"sum_m", r.sum_m},
          {"blocks", r.blocks},
          {"blocks_bound_hardmax", r.blocks_bound_hardmax},
          {"blocks_bound_softmax", r.blocks_bound_softmax},
          {"width", r.width},
          {"params", r.params},
          {"params_bound", r.params_bound},
          {"param_norm_sq_sha256", r.param_norm_sq_sha256},
          {"tau_star_lower", r.tau_star_lower}};
}

RegressionRecord regression_record_from_json(const nlohmann::json& j) {
  RegressionRecord r;
  r.dataset = j.at("dataset").get<std::string>();
  r.verified_hardmax = j.at("verified_hardmax").get<bool>();
  r.verified_softmax = j.at("verified_softmax").get<bool>();
  r.N = j.at("N").get<std::size_t>();
  r.d = j.at("d").get<std::size_t>();
  r.sum_m = j.at("sum_m").get<std::size_t>();
  r.blocks = j.at("blocks").get<std::size_t>();
  r.blocks_bound_hardmax = j.at("blocks_bound_hardmax").get<std::size_t>();
  r.blocks_bound_softmax = j.at("blocks_bound_softmax").get<std::size_t>();
  r.width = j.at("width").get<std::size_t>();
  r.params = j.at("params").get<std::size_t>();
  r.params_bound = j.at("params_bound").get<std::size_t>();
  r.param_norm_sq_sha256 = j.at("param_norm_sq_sha256").get<std::string>();
  r.tau_star_lower = j.at("tau_star_lower").get<std::string>();
  return r;
}

std::vector<std::string> golden_differences(const RegressionRecord& golden, const RegressionRecord& now) {
  std::vector<std::string> out;
  const auto g = to_json(golden), n = to_json(now);
  for (const auto& [field, value] : g.items())
    if (n.at(field) != value) out.push_back(now.dataset + ": " + field + ": golden " + value.dump() + " -> now " + n.at(field).dump());
  return out;
}

std::vector<std::pair<std::string, Dataset>> load_corpus(const std::string& corpus_path) {
  namespace fs = std::filesystem;
  const auto j = parse_limited_json(read_file_limited(corpus_path, 1 << 20, "corpus"), corpus_path);
  std::vector<std::pair<std::string, Dataset>> out;
  const fs::path dir = fs::path(corpus_path).parent_path();
  for (const auto& f : j.at("files")) {
    const std::string rel = f.get<std::string>();
    out.emplace_back(fs::path(rel).filename().string(), read_dataset_file((dir / rel).string()));
  }
  for (const auto& r : j.at("random")) {
    RandomDatasetSpec s;
    s.N = r.at("N");
    s.n_min = r.at("n_min");
    s.n_max = r.at("n_max");
    s.m_max = r.at("m_max");
    s.d = r.at("d");
    s.coordinate_range = r.at("coordinate_range");
    s.max_denominator = r.at("max_denominator");
    s.share_probability = r.at("share_probability");
    out.emplace_back(r.at("name").get<std::string>(), random_dataset(s, r.at("seed").get<std::uint64_t>()));
  }
  return out;
}

}  // namespace seqi
