// Hashes, counts, ||theta||^2 and the theorem bounds, recomputed from the files.
#include "claims.hpp"

namespace check {
namespace {

std::string text(std::size_t n) { return std::to_string(n); }

// A boolean claim that must hold of the recomputed values.
void claim_true(Report& r, const json& cert, const std::string& section, const std::string& key, bool holds,
                const std::string& what) {
  const json& v = field(field(cert, section, "certificate"), key, "certificate " + section);
  if (!v.is_boolean()) throw BadInput("certificate " + section + "." + key + ": expected true or false");
  const std::string claim = section + "." + key + " (" + what + ")";
  if (v.get<bool>() == holds) return r.confirmed(claim + ": " + (holds ? "true" : "false"));
  r.refuted(claim, std::string("the certificate says ") + (holds ? "false" : "true") + ", recomputed " +
                       (holds ? "true" : "false"));
}

}  // namespace

void claim_equal(Report& r, const json& cert, const std::string& section, const std::string& key, const Q& value) {
  const std::string where = "certificate " + section + "." + key;
  const Q stated = parse_q(field(field(cert, section, "certificate"), key, "certificate " + section), where);
  if (stated == value) return r.confirmed(section + "." + key + " = " + value.get_str());
  r.refuted(section + "." + key, "the certificate says " + stated.get_str() + ", recomputed " + value.get_str());
}

void check_hashes_and_counts(Report& r, const Inputs& in) {
  const json& cert = in.cert;
  for (const auto& [section, got] : {std::pair<std::string, std::string>{"dataset", in.dataset_sha256},
                                     {"model", in.model_sha256}}) {
    const json& h = field(field(cert, section, "certificate"), "sha256", "certificate " + section);
    const std::string claim = section + ".sha256";
    if (h == got) r.confirmed(claim + " = " + got);
    else r.refuted(claim, "the certificate says " + h.dump() + ", the file hashes to " + got);
  }
  const Dataset& data = in.data;
  const std::size_t N = data.pairs.size(), d = data.d, sum_m = data.sum_m;
  claim_equal(r, cert, "dataset", "N", N);
  claim_equal(r, cert, "dataset", "d", d);
  claim_equal(r, cert, "dataset", "sum_m", sum_m);
  std::size_t sum_n = 0;
  for (const auto& p : data.pairs) sum_n += p.input.size();
  claim_equal(r, cert, "dataset", "sum_n", sum_n);
  if (in.model.d != d) r.refuted("model dimension", "the model has d = " + text(in.model.d) + ", the dataset " + text(d));
  const ModelCounts c = count_model(in.model);
  claim_equal(r, cert, "counts", "blocks", c.blocks);
  const json& phases = field(field(cert, "counts", "certificate"), "blocks_by_phase", "certificate counts");
  for (const auto& [phase, count] : c.by_phase)
    if (!phases.contains(phase) || parse_q(phases[phase], "certificate counts.blocks_by_phase") != count)
      r.refuted("counts.blocks_by_phase", "phase " + phase + " has " + text(count) + " blocks in the model");
  if (phases.size() == c.by_phase.size()) r.confirmed("counts.blocks_by_phase (" + text(phases.size()) + " phases)");
  else r.refuted("counts.blocks_by_phase", "the certificate lists " + text(phases.size()) + " phases, the model has " +
                                               text(c.by_phase.size()));
  claim_equal(r, cert, "counts", "width", c.width);
  claim_equal(r, cert, "counts", "heads", c.heads);
  claim_equal(r, cert, "counts", "max_rank_A", c.heads);
  claim_equal(r, cert, "counts", "max_rank_V", c.rank_V);
  claim_equal(r, cert, "counts", "params", c.params);
  claim_equal(r, cert, "counts", "params_dense", c.params_dense);
  claim_equal(r, cert, "counts", "param_norm_sq", c.norm_sq);
  // Thm 1.6 / 1.8 and lem:counts, from the dataset alone.
  const std::size_t hard = 2 * sum_m + 2 * N + 1, soft = 2 * sum_m + 3 * N, params = (20 * d + 22) * sum_m;
  claim_equal(r, cert, "bounds", "blocks_hardmax", hard);
  claim_equal(r, cert, "bounds", "blocks_softmax", soft);
  claim_equal(r, cert, "bounds", "width", 4);
  claim_equal(r, cert, "bounds", "params", params);
  const bool softmax = field(cert, "setting", "certificate") == "softmax";
  claim_true(r, cert, "bounds", "blocks_within", c.blocks <= (softmax ? soft : hard),
             text(c.blocks) + " blocks <= " + text(softmax ? soft : hard));
  claim_true(r, cert, "bounds", "width_within", c.width <= 4, "width " + text(c.width) + " <= 4");
  claim_true(r, cert, "bounds", "params_within", c.params <= params, text(c.params) + " parameters <= " + text(params));
}

void note_float_statements(Report& r, const json& cert) {
  for (const std::string name : {"float64", "float32"}) {
    const std::string where = "certificate " + name;
    if (name == "float32" && !cert.contains(name)) {  // certificates written before the key was added
      r.note("the certificate has no float32 statement");
      continue;
    }
    const json& s = field(cert, name, "certificate");
    const json &shown = field(s, "shown", where), &delta = field(s, "delta", where), &failure = field(s, "failure", where);
    const bool ok = s.size() == 3 && shown.is_boolean() &&
                    (shown == true ? delta.is_string() && failure.is_null() : delta.is_null() && failure.is_string());
    if (!ok || (shown == true && parse_q(delta, where + ".delta") < 0))
      throw BadInput(where + ": expected {\"shown\": true, \"delta\": \"D\", \"failure\": null} with D >= 0, or "
                     "{\"shown\": false, \"delta\": null, \"failure\": \"why\"}");
    r.note("not checked: the " + name + " statement (" +
           (shown == true ? "shown, delta " + delta.get<std::string>() : "not shown: " + failure.get<std::string>().substr(0, 160)) +
           "), a claim about rounding beside the exact ones; seqi-check re-checks no float statement");
  }
}

}  // namespace check
