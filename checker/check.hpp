// seqi-check: an independent checker of seqi's machine-readable certificates. Shares no source
// with the engine; trusts only this folder, GMP, MPFR, nettle (SHA-256) and nlohmann-json.
#pragma once
#include <cstddef>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include <gmpxx.h>
#include <nlohmann/json.hpp>

namespace check {

using Q = mpq_class;
using Vec = std::vector<Q>;
using json = nlohmann::json;

// Bad input (exit 2): the message names the file and what is wrong.
struct BadInput : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// ---- files (files.cpp) ----
std::string read_bytes(const std::string& path);
std::string sha256_hex(const std::string& bytes);
// JSON whose numbers are kept as their decimal text (strings), never rounded to a double.
json parse_json_exact(const std::string& text, const std::string& path);
// "-3/7", "2", "0.125", "1e-3", "-2.5E+4" as an exact rational; throws BadInput naming `where`.
Q parse_q(const json& value, const std::string& where);
std::size_t parse_count(const json& value, const std::string& where);
const json& field(const json& object, const std::string& key, const std::string& where);

// ---- the dataset (dataset.cpp) ----
// A sequence's tokens stored compactly: integers over one common denominator (Fashion-MNIST's
// pixels are k/255), or the rationals themselves when a numerator does not fit in a long.
class Tokens {
 public:
  explicit Tokens(const std::vector<Vec>& x);
  std::vector<Vec> get() const;  // exactly the tokens given
  std::size_t size() const { return n_; }

 private:
  std::size_t n_ = 0, d_ = 0;
  mpz_class den_ = 1;
  std::vector<long> num_;   // n x d, row-major
  std::vector<Vec> exact_;  // when num_ cannot hold them
};
struct Pair {
  Tokens input, output;
  std::size_t index = 0;  // in the file
};
struct Dataset {
  std::size_t d = 0;
  std::vector<Pair> pairs;  // after merging duplicate pairs (def:hypotheses)
  std::size_t merged = 0;   // duplicate pairs removed
  std::size_t sum_m = 0;
};
// Reads the dataset and checks H1-H5 from their definitions; a violation is bad input.
Dataset read_dataset(const std::string& text, const std::string& path);

// ---- the model (model.cpp) ----
struct LowRank {  // alpha I + sum_t p_t q_t^T
  Q alpha;
  std::vector<std::pair<Vec, Vec>> terms;
  bool zero() const { return alpha == 0 && terms.empty(); }
  Vec apply(const Vec& x) const;
};
struct Block {
  std::string phase;
  Q rho, eta;
  LowRank A, V;
  std::vector<Vec> U, W;  // U: w rows of d; W: d rows of w
  Vec b;
};
struct Model {
  std::size_t d = 0;
  std::vector<Block> blocks;
};
Model read_model(const std::string& text, const std::string& path);
struct ModelCounts {
  std::size_t blocks = 0, width = 0, heads = 0, rank_V = 0, params = 0, params_dense = 0;
  std::vector<std::pair<std::string, std::size_t>> by_phase;
  Q norm_sq;
};
ModelCounts count_model(const Model& m);

// ---- the verdicts ----
// Per sequence: "" when the outputs equal the targets as sets, else what differs.
std::vector<std::string> hardmax_pass(const Model& m, const Dataset& data);
// Softmax at temperature tau (softmax.cpp): exp enclosed by MPFR rounding down and up with
// `bits` of precision, everything else exact. Also, per sequence, at the first attention layer
// whose weights are not exact: the score gap (best minus second best, over tokens; 0 on a tie)
// and the spread of the readings q.x of V = p q^T (lem:softmax-enclosure's G_j and D_j).
struct SoftmaxOutcome {
  std::vector<std::string> verdicts;
  std::vector<std::optional<Q>> gap;  // nullopt: no such layer, or n_j = 1
  std::vector<std::optional<Q>> spread;
};
SoftmaxOutcome softmax_pass(const Model& m, const Dataset& data, const Q& tau, unsigned bits);
// Upper bound on ln(x) for a rational x > 1 (MPFR, rounding up), as an exact rational.
Q ln_upper(const Q& x, unsigned bits);

// Compares two token lists as sets (exact); "" when equal.
std::string set_difference_text(std::vector<Vec> outputs, std::vector<Vec> targets);
std::string show(const Vec& x);
std::string approx(const Q& x);  // "~4.07916": for reading only, never for a decision

// ---- the report (report.cpp) ----
class Report {
 public:
  void confirmed(const std::string& claim);
  void refuted(const std::string& claim, const std::string& why);
  void note(const std::string& text);
  bool any_refuted() const { return refuted_ > 0; }
  std::size_t confirmed_count() const { return confirmed_; }

 private:
  std::size_t confirmed_ = 0, refuted_ = 0;
};

}  // namespace check
