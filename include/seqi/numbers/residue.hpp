// Residues of exact rationals modulo the Mersenne prime p = 2^61 - 1: the ring map
// a/b -> a * b^-1 mod p, defined when p does not divide b. Equal rationals have equal
// residues, so residues FILTER equality tests: unequal residues prove inequality; equal
// residues decide nothing and are re-checked exactly by the caller.
#pragma once
#include <cstdint>
#include <optional>
#include <vector>

#include "seqi/numbers/rational.hpp"

namespace seqi {

inline constexpr std::uint64_t kResidueModulus = (std::uint64_t{1} << 61) - 1;

// Arguments and results in [0, p).
std::uint64_t add_mod(std::uint64_t a, std::uint64_t b);
std::uint64_t mul_mod(std::uint64_t a, std::uint64_t b);
std::uint64_t inverse_mod(std::uint64_t a);  // precondition a != 0

std::uint64_t residue(const Integer& x);
// nullopt when p divides the denominator.
std::optional<std::uint64_t> residue(const Rational& x);

// Residue of sum_c w[c] x[c]; nullopt when p divides a denominator. Precondition w.size() == x.size().
std::optional<std::uint64_t> weighted_residue(const std::vector<std::uint64_t>& w, const Point& x);

// d fixed pseudo-random weights in [0, p) (a function of c only; no generator state), so
// that distinct points collide under weighted_residue with probability about 1/p.
std::vector<std::uint64_t> residue_weights(std::size_t d);

}  // namespace seqi
