#include "seqi/construction/separating_shift.hpp"

#include <optional>

#include "seqi/core/chunks.hpp"
#include "seqi/core/point_groups.hpp"
#include "seqi/numbers/point_set.hpp"
#include "seqi/numbers/residue.hpp"

namespace seqi {

SeparatingShift::SeparatingShift(const std::vector<Point>& tokens, const std::vector<std::size_t>& owner,
                                 const std::vector<Point>& mu, unsigned threads)
    : SeparatingShift(tokens.size(), [&tokens](std::size_t i) { return tokens[i]; },
                      tokens.empty() ? std::nullopt
                                     : weighted_residues(residue_weights(static_cast<std::size_t>(tokens.front().size())),
                                                         tokens, threads),
                      owner, mu, threads) {}

SeparatingShift::SeparatingShift(std::size_t n, std::function<Point(std::size_t)> token,
                                 std::optional<std::vector<std::uint64_t>> residues,
                                 const std::vector<std::size_t>& owner, const std::vector<Point>& mu, unsigned threads)
    : n_(n), token_(std::move(token)), owner_(owner), mu_(mu), threads_(threads),
      token_residue_(std::move(residues)) {
  if (n_ > 0) weights_ = residue_weights(static_cast<std::size_t>(mu.front().size()));
}

void shift_tokens(std::vector<Point>& tokens, const std::vector<std::size_t>& owner, const std::vector<Point>& mu,
                  const Point& f, const Point& v, unsigned threads) {
  std::vector<Point> step(mu.size());  // v (f . mu_j), once per sequence
  for_each_index(mu.size(), threads, [&](std::size_t j) { step[j] = v * dot(f, mu[j]); });
  for_each_chunk(tokens.size(), threads, [&](std::size_t, std::size_t first, std::size_t last) {
    for (std::size_t i = first; i < last; ++i) {
      const Point& s = step[owner[i]];
      for (Eigen::Index c = 0; c < s.size(); ++c) {
        if (s[c].is_zero()) continue;
        if (tokens[i][c].is_zero())
          tokens[i][c] = s[c];
        else
          tokens[i][c] += s[c];
      }
    }
  });
}

std::vector<Point> SeparatingShift::shifted(const Point& f, const Point& v) const {
  std::vector<Point> out(n_);
  for_each_chunk(n_, threads_, [&](std::size_t, std::size_t first, std::size_t last) {
    for (std::size_t i = first; i < last; ++i) out[i] = token_(i);
  });
  shift_tokens(out, owner_, mu_, f, v, threads_);
  return out;
}

bool SeparatingShift::separates(const Point& f, const Point& v) const {
  // Residue of shifted token i: h(x_i) + (f . mu_j) h(v), h = weighted residue; equal
  // shifted tokens have equal residues, so only runs of equal residues are compared exactly.
  // Fallback when p divides a denominator: sort all shifted tokens.
  const auto by_sorting = [&] { return !find_equal_pair(shifted(f, v)).has_value(); };
  if (n_ == 0) return true;
  const auto hv = weighted_residue(weights_, v);
  if (!token_residue_ || !hv) return by_sorting();
  std::vector<std::uint64_t> f_weights;
  for (Eigen::Index c = 0; c < f.size(); ++c) {
    const auto r = residue(f[c]);
    if (!r) return by_sorting();
    f_weights.push_back(*r);
  }
  const auto s = weighted_residues(f_weights, mu_, threads_);  // residues of f . mu_j
  if (!s) return by_sorting();
  std::vector<std::uint64_t> key(n_);
  for (std::size_t i = 0; i < key.size(); ++i) key[i] = add_mod((*token_residue_)[i], mul_mod((*s)[owner_[i]], *hv));
  std::vector<std::optional<Rational>> exact_s(mu_.size());
  for (const auto& run : equal_key_runs(key)) {
    std::vector<Point> pts;
    for (std::size_t i : run) {
      auto& sj = exact_s[owner_[i]];
      if (!sj) sj = dot(f, mu_[owner_[i]]);
      pts.push_back(token_(i) + v * *sj);
    }
    if (find_equal_pair(pts)) return false;
  }
  return true;
}

}  // namespace seqi
