// The constants regression gate: certifies every dataset of the corpus in both settings and
// compares with the golden file. Exit 0 pass, 1 a bound exceeded / not verified / changed, 2 usage.
//   seqi_regression --corpus datasets/regression/corpus.json --golden tests/regression/golden.json [--bless]
// --bless rewrites the golden file from this run (do it deliberately, and say why in the commit).
#include <CLI/CLI.hpp>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>

#include "regression_gate.hpp"
#include "seqi/io/atomic_write.hpp"
#include "seqi/io/dataset_json.hpp"
#include "seqi/io/exact_json.hpp"
#include "seqi/io/read_file.hpp"

using namespace seqi;
namespace fs = std::filesystem;

namespace {

RegressionRecord measure(const std::string& name, const Dataset& data) {
  const auto built = build_interpolating_transformer(data, 1);
  return regression_record(name, certify_construction_hardmax(data, built, false).certificate,
                           certify_construction_softmax(data, built, SoftmaxOptions{}).certificate);
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"Constants regression gate (Thm 1.6 / 1.8 bounds, verification, golden values)"};
  std::string corpus, golden;
  bool bless = false;
  app.add_option("--corpus", corpus, "corpus JSON")->required();
  app.add_option("--golden", golden, "golden JSON")->required();
  app.add_flag("--bless", bless, "rewrite the golden file from this run");
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    app.exit(e);
    return 2;
  }
  try {
    std::vector<std::string> problems;
    nlohmann::json now = nlohmann::json::array();
    std::map<std::string, RegressionRecord> old;
    if (!bless)
      for (const auto& g : parse_limited_json(read_file_limited(golden, 1 << 26, "golden"), golden))
        old.emplace(g.at("dataset").get<std::string>(), regression_record_from_json(g));
    for (const auto& [name, data] : load_corpus(corpus)) {
      const auto rec = measure(name, data);
      for (auto& v : bound_violations(rec)) problems.push_back(v);
      if (!bless) {
        auto it = old.find(name);
        if (it == old.end())
          problems.push_back(name + ": not in the golden file (re-bless to add it)");
        else {
          for (auto& d : golden_differences(it->second, rec)) problems.push_back(d);
          old.erase(it);
        }
      }
      now.push_back(to_json(rec));
      std::cout << name << ": blocks " << rec.blocks << " <= " << rec.blocks_bound_hardmax << ", tau* >= "
                << rec.tau_star_lower << "\n";
    }
    for (const auto& [name, rec] : old) problems.push_back(name + ": in the golden file but not in the corpus");
    if (bless) {
      if (!problems.empty()) {
        for (const auto& p : problems) std::cerr << "gate: " << p << "\n";
        std::cerr << "gate: refusing to bless a run that violates the theorem constants\n";
        return 1;
      }
      seqi::write_file_atomically(golden, "golden", [&](std::ostream& out) { out << now.dump(1) << "\n"; });
      std::cout << "blessed " << now.size() << " records into " << golden << "\n";
      return 0;
    }
    for (const auto& p : problems) std::cerr << "gate: " << p << "\n";
    std::cout << (problems.empty() ? "gate: pass" : "gate: FAIL") << " (" << now.size() << " datasets)\n";
    return problems.empty() ? 0 : 1;
  } catch (const std::exception& e) {
    std::cerr << "gate: " << e.what() << "\n";
    return 2;
  }
}
