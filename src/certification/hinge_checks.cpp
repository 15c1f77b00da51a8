// lem:hinge-interpolation: the structure a hinge interpolation's exact pass relies on, and its counts.
#include "seqi/certification/hinge_checks.hpp"

#include <algorithm>
#include <string>

#include "seqi/certification/certificate_checks.hpp"
#include "seqi/certification/counts.hpp"

namespace seqi {
namespace {

// Empty when the z are pairwise distinct; otherwise the first tie, by sequence.
std::string collapse_tie(const std::vector<Rational>& z) {
  std::vector<std::pair<Rational, std::size_t>> sorted;
  for (std::size_t j = 0; j < z.size(); ++j) sorted.emplace_back(z[j], j);
  std::sort(sorted.begin(), sorted.end());
  for (std::size_t k = 1; k < sorted.size(); ++k)
    if (sorted[k].first == sorted[k - 1].first)
      return "sequences " + std::to_string(sorted[k - 1].second + 1) + " and " + std::to_string(sorted[k].second + 1) +
             " have one collapse value";
  return {};
}

// Empty when r . v = 1 and every target reads r . y_1; otherwise the first that does not.
std::string reading_failure(const Dataset& data, const InterpolationRecord& rec) {
  if (rec.reading.size() != rec.v.size() || dot(rec.reading, rec.v) != 1) return "r . v is not 1";
  const Rational c = dot(rec.reading, data.pairs.front().output[0]);
  for (std::size_t j = 1; j < data.pairs.size(); ++j)
    if (dot(rec.reading, data.pairs[j].output[0]) != c)
      return "the target of sequence " + std::to_string(j + 1) + " reads another value along r";
  return {};
}

// Empty when every attention layer after block 1's is the identity and every output column of
// every feed-forward layer but the last is orthogonal to r; otherwise the first that is not.
std::string layer_failure(const Transformer<Rational>& model, const Point& r) {
  for (std::size_t b = 0; b < model.blocks.size(); ++b) {
    const auto& block = model.blocks[b];
    const std::string name = "block " + std::to_string(b + 1);
    if (b > 0 && !block.sa.is_identity()) return name + ": the attention layer is not the identity";
    if (block.ff.eta != 1) return name + ": eta is not 1";
    if (b + 1 == model.blocks.size()) break;
    for (Eigen::Index k = 0; k < block.ff.W.cols(); ++k)
      if (dot(r, Point(block.ff.W.col(k))) != 0)
        return name + ": unit " + std::to_string(k + 1) + "'s output is not orthogonal to r";
  }
  return {};
}

}  // namespace

void add_hinge_structure_checks(Certificate& cert, const Dataset& data, const Construction& built) {
  const auto& rec = built.record.interpolation;
  const std::string tie = collapse_tie(rec.z);
  cert.add({"collapse values z_j pairwise distinct", "lem:hinge-interpolation", tie.empty(), true,
            tie.empty() ? std::to_string(rec.z.size()) + " values" : tie});
  const std::string reading = reading_failure(data, rec);
  cert.add({"r . v = 1 and every target reads one value along r", "lem:hinge-interpolation", reading.empty(), true,
            reading.empty() ? "all targets" : reading});
  const std::string layers = layer_failure(built.model, rec.reading);
  cert.add({"every layer but the last leaves r . x unchanged (identity attention, eta = 1, outputs orthogonal to r)",
            "lem:hinge-interpolation", layers.empty(), true,
            layers.empty() ? std::to_string(built.model.blocks.size()) + " blocks" : layers});
}

void add_hinge_count_checks(Certificate& cert, const Dataset& data, const Construction& built) {
  Counts& c = cert.counts;
  const auto& rec = built.record.interpolation;
  c.distinct_targets = distinct_target_count(data);
  c.mean_collapse = true;
  c.hinges = true;
  c.blocks_bound_grouped = (c.N + 1 + 3) / 4;
  const std::size_t units = rec.hinges + (c.N > 1 ? 2 : 1), blocks = (units + 3) / 4;
  const bool shape = c.blocks == blocks && c.blocks_by_phase["interpolation"] == blocks;
  cert.add({"blocks = ceil((hinges + 2) / 4), four units per block", "lem:hinge-interpolation", shape, true,
            count_detail(c.blocks, "=", blocks) + " (" + std::to_string(rec.hinges) + " hinges)"});
  cert.add({"blocks <= ceil((N + 1) / 4) (at most N - 1 hinges)", "lem:hinge-interpolation",
            c.blocks <= c.blocks_bound_grouped, true, count_detail(c.blocks, "<=", c.blocks_bound_grouped)});
  const std::size_t predicted = (2 * c.d + 1) * units + 4 * blocks + 2 * c.d;
  cert.add({"parameters = (2d+1) units + 4 blocks + 2d", "lem:hinge-interpolation", c.params == predicted, true,
            count_detail(c.params, "=", predicted)});
}

}  // namespace seqi
