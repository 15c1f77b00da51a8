// The dataset and its hypotheses H1-H5 (def:hypotheses in proofs/construction.tex), checked
// from their definitions: sets are compared as sorted lists of exact rational points.
#include <algorithm>
#include <unordered_map>

#include "check.hpp"

namespace check {
namespace {

std::vector<Vec> read_tokens(const json& list, std::size_t d, const std::string& where) {
  if (!list.is_array()) throw BadInput(where + ": expected a list of tokens");
  std::vector<Vec> tokens;
  for (std::size_t t = 0; t < list.size(); ++t) {
    const std::string at = where + " token " + std::to_string(t + 1);
    if (!list[t].is_array() || list[t].size() != d)
      throw BadInput(at + ": expected " + std::to_string(d) + " coordinates (H4: one common dimension)");
    Vec x;
    for (const auto& c : list[t]) x.push_back(parse_q(c, at));
    tokens.push_back(std::move(x));
  }
  return tokens;
}

// H1 / H2: the tokens of one sequence are pairwise distinct. Returns them sorted.
std::vector<Vec> distinct_sorted(std::vector<Vec> tokens, const std::string& where, const char* hypothesis) {
  std::sort(tokens.begin(), tokens.end());
  if (auto it = std::adjacent_find(tokens.begin(), tokens.end()); it != tokens.end())
    throw BadInput(where + ": the token " + show(*it) + " appears twice (" + hypothesis + ": sequences are sets)");
  return tokens;
}

// A hash of a sorted token set, to find repeated input sets; equality is then decided exactly.
std::size_t set_hash(const std::vector<Vec>& tokens) {
  std::size_t h = tokens.size();
  const auto mix = [&h](const mpz_class& z) {
    h = h * 1000003 + static_cast<std::size_t>(mpz_sgn(z.get_mpz_t())) + mpz_get_ui(z.get_mpz_t());
  };
  for (const auto& x : tokens)
    for (const auto& c : x) mix(c.get_num()), mix(c.get_den());
  return h;
}

}  // namespace

Dataset read_dataset(const std::string& text, const std::string& path) {
  json j = parse_json_exact(text, path);
  Dataset data;
  data.d = parse_count(field(j, "dimension", path), path + " \"dimension\"");
  if (data.d < 2) throw BadInput(path + ": \"dimension\" must be at least 2 (H4)");
  (void)field(j, "pairs", path);
  json& pairs = j["pairs"];
  if (!pairs.is_array() || pairs.empty()) throw BadInput(path + ": \"pairs\" must be a non-empty list");
  std::unordered_multimap<std::size_t, std::size_t> seen;  // hash of the input set -> pair (in data.pairs)
  for (std::size_t k = 0; k < pairs.size(); ++k) {
    const std::string where = path + ": pair " + std::to_string(k + 1);
    const std::vector<Vec> input = read_tokens(field(pairs[k], "input", where), data.d, where + " input");
    const std::vector<Vec> output = read_tokens(field(pairs[k], "output", where), data.d, where + " output");
    pairs[k] = nullptr;  // read: its text is no longer needed
    if (output.empty() || output.size() > input.size())
      throw BadInput(where + ": H5 needs 1 <= m <= n, got n = " + std::to_string(input.size()) +
                     ", m = " + std::to_string(output.size()));
    const auto in_set = distinct_sorted(input, where + " input", "H1");
    const auto out_set = distinct_sorted(output, where + " output", "H2");
    const std::size_t h = set_hash(in_set);
    bool duplicate = false;
    for (auto [it, end] = seen.equal_range(h); it != end && !duplicate; ++it) {
      const Pair& q = data.pairs[it->second];
      if (distinct_sorted(q.input.get(), "", "H1") != in_set) continue;  // the same hash, another set
      if (distinct_sorted(q.output.get(), "", "H2") != out_set)
        throw BadInput(where + ": same input set as pair " + std::to_string(q.index + 1) +
                       " with another output set (H3: no set-to-set map can do both)");
      duplicate = true;
    }
    if (duplicate) {
      ++data.merged;  // a duplicate pair: removed (def:hypotheses)
      continue;
    }
    seen.emplace(h, data.pairs.size());
    data.sum_m += output.size();
    data.pairs.push_back({Tokens(input), Tokens(output), k});
  }
  return data;
}

Tokens::Tokens(const std::vector<Vec>& x) : n_(x.size()), d_(x.empty() ? 0 : x[0].size()) {
  for (const auto& t : x)
    for (const auto& c : t) mpz_lcm(den_.get_mpz_t(), den_.get_mpz_t(), c.get_den_mpz_t());
  for (const auto& t : x)
    for (const auto& c : t) {
      const mpz_class z = c.get_num() * (den_ / c.get_den());
      if (!z.fits_slong_p()) {
        num_.clear();
        exact_ = x;
        return;
      }
      num_.push_back(z.get_si());
    }
}

std::vector<Vec> Tokens::get() const {
  if (!exact_.empty()) return exact_;
  std::vector<Vec> x(n_, Vec(d_));
  for (std::size_t i = 0; i < n_; ++i)
    for (std::size_t c = 0; c < d_; ++c) {
      x[i][c] = Q(mpz_class(num_[i * d_ + c]), den_);
      x[i][c].canonicalize();
    }
  return x;
}

std::string show(const Vec& x) {
  std::string s = "(";
  for (std::size_t i = 0; i < x.size(); ++i) s += (i ? ", " : "") + x[i].get_str();
  s += ")";
  return s.size() > 120 ? s.substr(0, 116) + "...)" : s;
}

std::string set_difference_text(std::vector<Vec> outputs, std::vector<Vec> targets) {
  std::sort(outputs.begin(), outputs.end());
  outputs.erase(std::unique(outputs.begin(), outputs.end()), outputs.end());
  std::sort(targets.begin(), targets.end());
  std::vector<Vec> extra, missing;
  std::set_difference(outputs.begin(), outputs.end(), targets.begin(), targets.end(), std::back_inserter(extra));
  std::set_difference(targets.begin(), targets.end(), outputs.begin(), outputs.end(), std::back_inserter(missing));
  if (!extra.empty()) return "output " + show(extra.front()) + " is not a target";
  if (!missing.empty()) return "target " + show(missing.front()) + " is not an output";
  return "";
}

}  // namespace check
