// The shift x -> x + v (f . mu_j) of lem:separation applied to the tokens of sequence j, and
// the exact test that it leaves all tokens pairwise distinct. Residues (numbers/residue.hpp)
// filter the test: only tokens whose shifted residues agree are compared exactly, so a
// redrawn (f, v) costs linear work instead of a lexicographic sort of all tokens.
#pragma once
#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <vector>

#include "seqi/numbers/rational.hpp"

namespace seqi {

// x_i += v (f . mu_owner[i]) for every token i, in place (on `threads` threads).
void shift_tokens(std::vector<Point>& tokens, const std::vector<std::size_t>& owner, const std::vector<Point>& mu,
                  const Point& f, const Point& v, unsigned threads = 1);

// Preconditions: owner[i] < mu.size() is the sequence of token i, mu[j] its mean; the
// references stay valid while the object is used.
class SeparatingShift {
 public:
  // threads: for the residues of the tokens and of the means; no result depends on it.
  SeparatingShift(const std::vector<Point>& tokens, const std::vector<std::size_t>& owner,
                  const std::vector<Point>& mu, unsigned threads = 1);
  // n tokens given by token(i), with their residues weighted_residue(residue_weights(d), token i)
  // (nullopt: p divides some denominator). token(i) is called only for tokens whose shifted
  // residues agree with another's, or for all when residues are missing.
  SeparatingShift(std::size_t n, std::function<Point(std::size_t)> token,
                  std::optional<std::vector<std::uint64_t>> residues, const std::vector<std::size_t>& owner,
                  const std::vector<Point>& mu, unsigned threads = 1);

  // x_i + v (f . mu_owner[i]) for every token i.
  std::vector<Point> shifted(const Point& f, const Point& v) const;

  // True when the shifted tokens are pairwise distinct (decided exactly).
  bool separates(const Point& f, const Point& v) const;

 private:
  std::size_t n_;
  std::function<Point(std::size_t)> token_;
  const std::vector<std::size_t>& owner_;
  const std::vector<Point>& mu_;
  unsigned threads_;
  std::vector<std::uint64_t> weights_;
  std::optional<std::vector<std::uint64_t>> token_residue_;  // nullopt: exact sort instead
};

}  // namespace seqi
