#include "seqi/io/property_set.hpp"

#include <unistd.h>

#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <ostream>
#include <set>
#include <system_error>

#include "seqi/core/input_error.hpp"
#include "seqi/io/atomic_write.hpp"
#include "seqi/io/float_bits.hpp"
#include "seqi/io/model_onnx.hpp"
#include "seqi/io/quote_value.hpp"
#include "seqi/io/statement_metadata.hpp"
#include "seqi/io/vnnlib.hpp"

namespace seqi {
namespace fs = std::filesystem;

namespace {

const char* const kWhat = "; give a new or empty directory";

void write_text(const fs::path& path, const std::string& kind, const std::string& text) {
  write_file_atomically(path.string(), kind, [&](std::ostream& out) { out << text; });
}

void make_directory(const fs::path& dir) {
  std::error_code ec;
  fs::create_directory(dir, ec);
  if (ec) throw InputError("--save-property: cannot create the directory " + dir.string() + ": " + ec.message());
}

// The false claim's moved coordinate: target k, coordinate 0, moved up by 2 delta plus
// max(1, |y|) / 1024, then further while the exact output plus delta could still meet the
// claimed interval (checked on the exact bounds written).
struct Moved {
  std::uint32_t target = 0;
  Eigen::Index coordinate = 0;
  Rational from, to;
};

Moved move_target(const Point& target, std::uint32_t k, const Rational& delta) {
  Moved m{k, 0, target(0), target(0)};
  Rational margin = (m.from < 0 ? Rational(-m.from) : m.from) / 1024;
  if (margin < Rational(1, 1024)) margin = Rational(1, 1024);
  for (;; margin *= 2) {
    m.to = m.from + 2 * delta + margin;
    // The unsafe bound below the moved interval must be at or above the exact value plus delta.
    if (exact_rational_of_double(double_below(m.to - delta)) >= m.from + delta) return m;
  }
}

// One sequence's pair of properties, written into DIR/vnnlib; returns their manifest entries.
nlohmann::json write_sequence(const fs::path& dir, const Dataset& data, std::size_t j,
                              const std::vector<std::uint32_t>& target_of, const Rational& delta,
                              const std::string& onnx, unsigned timeout, std::string& instances) {
  const auto& pair = data.pairs[j];
  const std::vector<Point> input = pair.input.points(), targets = pair.output.points();
  BoxClaim claim{input, {}, delta};
  for (const std::uint32_t k : target_of) claim.centres.push_back(targets[k]);
  const std::string name = "seq" + std::to_string(j + 1), seq = "sequence " + std::to_string(j + 1);
  const std::string shape = std::to_string(input.size()) + " tokens of dimension " + std::to_string(data.dimension);
  std::vector<std::string> head{
      "seqi benchmark property: " + seq + " of " + std::to_string(data.pairs.size()) + " (" + shape + ")",
      "model: " + onnx + " (float64, X and Y of shape [" + std::to_string(input.size()) + ", " +
          std::to_string(data.dimension) + "])",
      "X: the input X_j, each coordinate the double nearest to the dataset's exact value",
      "delta = " + exact_decimal(static_cast<double>(delta)) + " (the float64 statement, lem:float-run)"};
  std::string targets_line = "targets of the output tokens (from 1):";
  for (std::size_t i = 0; i < target_of.size(); ++i) targets_line += " " + std::to_string(target_of[i] + 1);
  auto true_head = head;
  true_head.insert(true_head.end(), {"claim (true): every output coordinate within delta of its token's target", targets_line,
                                     "expected answer: unsat (the claim holds; the file states its negation)"});
  const std::string true_file = "vnnlib/" + name + "_true.vnnlib";
  write_text(dir / true_file, "property", vnnlib_text(claim, true_head));

  const Moved m = move_target(targets[target_of[0]], target_of[0], delta);
  for (std::size_t i = 0; i < target_of.size(); ++i)
    if (target_of[i] == m.target) claim.centres[i](m.coordinate) = m.to;
  const std::string moved = "target " + std::to_string(m.target + 1) + ", coordinate 1, moved from " + to_string(m.from) +
                            " to " + to_string(m.to) + " (by 2 delta + max(1, |y|)/1024 or more)";
  auto false_head = head;
  false_head.insert(false_head.end(), {"claim (false): as the true claim, with " + moved, targets_line,
                                       "expected answer: sat; counterexample: " + name + "_false.counterexample"});
  const std::string false_file = "vnnlib/" + name + "_false.vnnlib", cex = "vnnlib/" + name + "_false.counterexample";
  write_text(dir / false_file, "property", vnnlib_text(claim, false_head));
  std::vector<Point> exact_output;
  for (const std::uint32_t k : target_of) exact_output.push_back(targets[k]);
  write_text(dir / cex, "counterexample", counterexample_text(input, exact_output));

  const std::string t = std::to_string(timeout);
  instances += onnx + "," + true_file + "," + t + "\n" + onnx + "," + false_file + "," + t + "\n";
  nlohmann::json base{{"onnx", onnx}, {"sequence", j + 1}, {"tokens", input.size()}, {"timeout", timeout}};
  nlohmann::json yes = base, no = base;
  yes.update({{"vnnlib", true_file}, {"expected", "unsat"}});
  no.update({{"vnnlib", false_file}, {"expected", "sat"}, {"counterexample", cex}, {"moved", moved}});
  return {yes, no};
}

}  // namespace

void check_property_dir(const std::string& dir) {
  const std::string what = "--save-property " + quote_value(dir) + ": ";
  std::error_code ec;
  const fs::path canonical = fs::weakly_canonical(fs::absolute(dir), ec);
  for (const char* root : {"/proc", "/sys"})
    if (!ec && (canonical == root || canonical.string().starts_with(std::string(root) + "/")))
      throw InputError(what + "lies under " + root + kWhat);
  const auto status = fs::status(dir, ec);
  if (fs::exists(status)) {
    if (!fs::is_directory(status)) throw InputError(what + "exists and is not a directory" + kWhat);
    if (fs::directory_iterator(dir, ec) != fs::directory_iterator() || ec)
      throw InputError(what + (ec ? "cannot be listed (" + ec.message() + ")" : std::string("is not empty")) + kWhat);
    if (access(dir.c_str(), W_OK | X_OK) != 0) throw InputError(what + "is not writable" + kWhat);
    return;
  }
  fs::path parent = fs::path(dir).parent_path();
  if (parent.empty()) parent = ".";
  if (!fs::is_directory(parent, ec))
    throw InputError(what + "the directory " + parent.string() + " does not exist; create it or choose another DIR");
  if (access(parent.c_str(), W_OK | X_OK) != 0)
    throw InputError(what + "cannot be created: the directory " + parent.string() + " is not writable");
}

bool path_under_dir(const std::string& path, const std::string& dir) {
  std::error_code ec, ec2;
  const fs::path p = fs::weakly_canonical(fs::absolute(path), ec), d = fs::weakly_canonical(fs::absolute(dir), ec2);
  if (ec || ec2) return false;
  const auto rel = p.lexically_relative(d);
  return !rel.empty() && *rel.begin() != "..";
}

std::vector<std::size_t> parse_property_sequences(const std::string& text) {
  std::vector<std::size_t> out;
  std::set<std::size_t> seen;
  std::size_t start = 0;
  while (start <= text.size()) {
    const std::size_t comma = std::min(text.find(',', start), text.size());
    const std::string item = text.substr(start, comma - start);
    const bool digits = !item.empty() && item.size() <= 12 && item.find_first_not_of("0123456789") == std::string::npos;
    if (!digits || std::stoull(item) == 0)
      throw InputError("--property-sequences " + quote_value(text) + ": " + quote_value(item) +
                       " is not a sequence number; write numbers from 1, separated by commas, e.g. 1,4,6");
    const std::size_t j = std::stoull(item) - 1;
    if (!seen.insert(j).second)
      throw InputError("--property-sequences " + quote_value(text) + ": sequence " + item + " is named twice");
    out.push_back(j);
    start = comma + 1;
  }
  return out;
}

void check_property_sequences(const std::vector<std::size_t>& chosen, std::size_t count, const std::string& dataset) {
  for (const std::size_t j : chosen)
    if (j >= count)
      throw InputError("--property-sequences: sequence " + std::to_string(j + 1) + " is beyond the " +
                       std::to_string(count) + " sequences of " + dataset + " (numbered 1 to " +
                       std::to_string(count) + ")");
}

std::string write_property_set(const PropertySetRequest& request, const Dataset& data,
                               const Transformer<Rational>& model, const ModelExportInfo& info,
                               const std::vector<std::vector<std::uint32_t>>& target_of) {
  const fs::path dir(request.dir);
  std::string reason;
  if (!info.certified) reason = "the exact certificate does not hold";
  else if (!info.float64_delta)
    reason = "the float64 statement is not shown (" +
             (info.float64_not_shown.empty() ? std::string("not computed") : info.float64_not_shown) + ")";
  std::vector<std::size_t> chosen = request.sequences;
  if (chosen.empty())
    for (std::size_t j = 0; j < data.pairs.size(); ++j) chosen.push_back(j);
  for (const std::size_t j : chosen)
    if (reason.empty() && (j >= target_of.size() || target_of[j].size() != data.pairs[j].input.size()))
      reason = "sequence " + std::to_string(j + 1) + " has no exact output recorded token by token";
  make_directory(dir);
  nlohmann::json manifest{{"format", "seqi-vnnlib-benchmark"}, {"format_version", 1},
                          {"dataset", request.dataset_path}, {"dataset_sha256", info.dataset_sha256},
                          {"attention", info.tau ? "softmax" : "hardmax"}, {"timeout_seconds", request.timeout_seconds}};
  if (info.tau) manifest["tau"] = to_string(*info.tau);
  for (const auto& [key, value] : statement_metadata(info, "float64")) manifest[key] = value;
  manifest["instances"] = nlohmann::json::array();
  std::string instances;
  if (reason.empty()) {
    const Rational delta = exact_rational_of_double(*info.float64_delta);
    manifest["float64_delta_exact"] = exact_decimal(*info.float64_delta);
    make_directory(dir / "onnx");
    make_directory(dir / "vnnlib");
    std::map<std::size_t, std::string> models;  // tokens n -> onnx file
    for (const std::size_t j : chosen) {
      const std::size_t n = data.pairs[j].input.size();
      auto [it, fresh] = models.emplace(n, "onnx/model_n" + std::to_string(n) + ".onnx");
      ModelExportInfo float64 = info;
      float64.onnx_float32 = false;
      if (fresh) write_text(dir / it->second, "model", model_to_onnx(model, float64, static_cast<std::int64_t>(n)));
      for (auto& entry : write_sequence(dir, data, j, target_of[j], delta, it->second, request.timeout_seconds, instances))
        manifest["instances"].push_back(std::move(entry));
    }
  } else {
    manifest["no_properties"] = reason;
  }
  write_text(dir / "instances.csv", "index", instances);
  write_text(dir / "manifest.json", "manifest", manifest.dump(2) + "\n");
  return reason;
}

}  // namespace seqi
