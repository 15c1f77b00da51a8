// Every sequence's verdict, recomputed in the certificate's setting, and under softmax the
// temperature against tau* (lem:tau-star) from the checker's own G_j and D_j.
#include <algorithm>

#include "claims.hpp"

namespace check {
namespace {

std::string seq_name(std::size_t j) { return "sequence " + std::to_string(j + 1); }

// lem:tau-star: tau* >= min over j with (n_j - 1) D_j > df of G_j / ln((n_j - 1) D_j / df).
// G_j and D_j are the certificate's, each first confirmed against the checker's own (a smaller
// G_j or larger D_j only lowers the bound); df is the certificate's flat half-width.
void check_tau_star(Report& r, const json& sm, const Dataset& data, const SoftmaxOutcome& own, unsigned bits) {
  const Q df = parse_q(field(sm, "flat_halfwidth", "certificate softmax"), "certificate softmax.flat_halfwidth");
  const json& per = field(sm, "per_sequence", "certificate softmax");
  if (!per.is_array() || per.size() != data.pairs.size() || df <= 0)
    throw BadInput("certificate softmax: per_sequence must list every sequence and flat_halfwidth be positive");
  std::optional<Q> tau_star;
  bool quantities_ok = true;
  for (std::size_t j = 0; j < per.size(); ++j) {
    const json& s = per[j];
    const std::string where = "softmax.per_sequence " + seq_name(j);
    if (field(s, "G", where).is_null()) continue;
    const Q G = parse_q(s["G"], where + " G"), D = parse_q(field(s, "D", where), where + " D");
    const std::size_t n = data.pairs[j].input.size();
    if (!own.gap[j] || G > *own.gap[j] || G <= 0) {
      quantities_ok = false;
      r.refuted(where + " G", "the score gap at the first softmax-weighted layer is " +
                                  (own.gap[j] ? own.gap[j]->get_str() : std::string("not defined")) + " < G = " + G.get_str());
    }
    if (!own.spread[j] || D < *own.spread[j]) {
      quantities_ok = false;
      r.refuted(where + " D", "the spread of the readings is " +
                                  (own.spread[j] ? own.spread[j]->get_str() : std::string("not defined")) + " > D = " + D.get_str());
    }
    const Q X = Q(n - 1) * D / df;
    if (n <= 1 || X <= 1) continue;
    const Q tau_j = G / std::min(ln_upper(X, bits), Q(X - 1));
    if (!tau_star || tau_j < *tau_star) tau_star = tau_j;
  }
  if (quantities_ok) r.confirmed("softmax.per_sequence: every G_j <= the checker's score gap, every D_j >= its spread");
  const bool unbounded = field(sm, "tau_star_unbounded", "certificate softmax") == true;
  if (unbounded != !tau_star) r.refuted("softmax.tau_star_unbounded", tau_star ? "a sequence constrains tau" : "no sequence constrains tau");
  const json& lower = field(sm, "tau_star_lower", "certificate softmax");
  const std::optional<Q> stated = lower.is_null() ? std::nullopt : std::optional<Q>(parse_q(lower, "certificate softmax.tau_star_lower"));
  if (tau_star && (!stated || *stated > *tau_star))
    r.refuted("softmax.tau_star_lower", "re-derived tau* >= " + approx(*tau_star) + ", below the stated " +
                                            (stated ? stated->get_str() : std::string("none")));
  else if (tau_star) r.confirmed("softmax.tau_star_lower " + stated->get_str() + " <= re-derived " + approx(*tau_star));
  const Q tau = parse_q(field(sm, "tau", "certificate softmax"), "certificate softmax.tau");
  if (field(sm, "tau_within_tau_star", "certificate softmax") == true) {
    if (stated && tau > *stated) r.refuted("softmax.tau_within_tau_star", "tau = " + tau.get_str() + " > tau* lower bound " + stated->get_str());
    else r.confirmed("softmax.tau_within_tau_star: tau = " + tau.get_str());
  }
  r.note("tau* re-derived with the certificate's flat half-width df = " + df.get_str() + " (not recomputed)");
  r.note("not checked (information): softmax.binding_sequence, max_enclosure_radius, precision_bits and each "
         "per_sequence tau; the softmax pass above is the check at tau");
}

}  // namespace

void check_verdicts(Report& r, const Inputs& in) {
  const Dataset& data = in.data;
  const json& cert = in.cert;
  const bool softmax = field(cert, "setting", "certificate") == "softmax";
  SoftmaxOutcome own;
  unsigned bits = 256;
  if (softmax) {
    const json& sm = field(cert, "softmax", "certificate");
    const Q tau = parse_q(field(sm, "tau", "certificate softmax"), "certificate softmax.tau");
    if (tau <= 0) throw BadInput("certificate softmax.tau: the temperature must be positive");
    bits = static_cast<unsigned>(std::clamp<std::size_t>(parse_count(field(sm, "precision_bits", "certificate softmax"), "precision_bits"), 256, 100000));
    own = softmax_pass(in.model, data, tau, bits);
  } else {
    own.verdicts = hardmax_pass(in.model, data);
  }
  const json& seqs = field(cert, "sequences", "certificate");
  if (!seqs.is_array() || seqs.size() != data.pairs.size())
    return r.refuted("sequences", "the certificate lists " + std::to_string(seqs.size()) + " sequences, the dataset has " +
                                      std::to_string(data.pairs.size()));
  std::size_t agreed = 0, matching = 0;
  for (std::size_t j = 0; j < seqs.size(); ++j) {
    const std::string where = "certificate sequences " + seq_name(j);
    const std::size_t n = parse_count(field(seqs[j], "n", where), where), m = parse_count(field(seqs[j], "m", where), where);
    const bool claims_match = field(seqs[j], "verdict", where) == "matches", matches = own.verdicts[j].empty();
    matching += matches;
    if (n != data.pairs[j].input.size() || m != data.pairs[j].output.size())
      r.refuted("sequences " + seq_name(j) + " n, m", "the dataset has n = " + std::to_string(data.pairs[j].input.size()) +
                                                         ", m = " + std::to_string(data.pairs[j].output.size()));
    else if (claims_match != matches)
      r.refuted("sequences " + seq_name(j) + " verdict", std::string("the certificate says ") +
                                                             (claims_match ? "matches" : "mismatch") + "; recomputed: " +
                                                             (matches ? "matches" : own.verdicts[j]));
    else ++agreed;
  }
  if (agreed == seqs.size())
    r.confirmed("sequences: all " + std::to_string(agreed) + " verdicts recomputed (" + (softmax ? "softmax" : "hardmax") +
                ", " + std::to_string(matching) + " outputs equal to their targets as sets)");
  const bool verified = field(cert, "verified", "certificate") == true;
  if (verified && matching != seqs.size()) r.refuted("verified", "not every sequence's outputs equal its targets");
  else if (verified) r.confirmed("verified: every sequence maps exactly onto its targets");
  if (softmax) check_tau_star(r, field(cert, "softmax", "certificate"), data, own, bits);
}

}  // namespace check
