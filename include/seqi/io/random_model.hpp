// Seeded random general models for tests and benchmarks (never used in a certificate):
// L blocks; A and V = alpha I + up to max_terms rank-one terms p q^T with |p_k| <= 1 and
// |q_k| <= 1/d (so |p q^T x| <= |p| max_k |x_k|); rho, eta in {1, 1/2}; width 1 to 4.
#pragma once
#include <cstddef>
#include <random>

#include "seqi/model/transformer.hpp"

namespace seqi {

struct RandomModelDraw {
  std::mt19937_64 gen;
  long integer(long lo, long hi) { return std::uniform_int_distribution<long>(lo, hi)(gen); }
  Rational small(long den) { return Rational(integer(-den, den)) / den; }  // in [-1, 1], step 1/den
  Point point(int d, long den);
};

StructuredMatrix<Rational> random_structured(RandomModelDraw& r, int d, std::size_t max_terms, long den);
FeedForward<Rational> random_feed_forward(RandomModelDraw& r, int d);
Transformer<Rational> random_model(RandomModelDraw& r, int d, std::size_t blocks);

}  // namespace seqi
