// Helpers shared by the general-model suites (test_general_models, test_general_enclosures): the
// seeded random draws (SEQI_SEED=<seed> replays them) and the independent 500-bit replay of a
// general model, written from the definitions, with the containment checks against it.
#pragma once
#include <boost/test/unit_test.hpp>

#include <cstdint>
#include <cstdlib>
#include <iostream>
#include <random>
#include <vector>

#include <boost/multiprecision/mpfr.hpp>

#include "seqi/numbers/interval.hpp"
#include "seqi/io/random_model.hpp"

namespace seqi_test::general_models {

using namespace seqi;

namespace bmp = boost::multiprecision;
// The independent reference: 151 decimal digits (about 502 bits), written from the definitions.
using Hp = bmp::number<bmp::mpfr_float_backend<151>, bmp::et_off>;
using HpVec = std::vector<Hp>;

inline Rational q(long a, long b = 1) { return Rational(a) / Rational(b); }
inline Hp hp(const Rational& x) { return Hp(Integer(numerator(x))) / Hp(Integer(denominator(x))); }

inline std::uint64_t base_seed(const char* who) {
  const char* s = std::getenv("SEQI_SEED");
  const std::uint64_t seed = s && *s ? std::strtoull(s, nullptr, 10) : 20261130;
  std::cout << "general_models/" << who << ": SEQI_SEED=" << seed << " to replay\n";
  return seed;
}

struct TestRng : RandomModelDraw {
  // A rational inside [lo, hi] (lo when the interval is a point).
  Rational inside(const Interval& x) {
    const Rational lo = x.lower(), hi = x.upper();
    return lo + (hi - lo) * q(integer(0, 1000), 1000);
  }
};

// ---- the independent replay ------------------------------------------------------------------

inline HpVec apply_hp(const StructuredMatrix<Rational>& M, const HpVec& x) {
  HpVec y(x.size());
  for (std::size_t k = 0; k < x.size(); ++k) y[k] = hp(M.alpha) * x[k];
  for (const auto& t : M.terms) {
    Hp c = 0;
    for (std::size_t k = 0; k < x.size(); ++k) c += hp(t.q[static_cast<Eigen::Index>(k)]) * x[k];
    for (std::size_t k = 0; k < x.size(); ++k) y[k] += hp(t.p[static_cast<Eigen::Index>(k)]) * c;
  }
  return y;
}

inline Hp dot_hp(const HpVec& a, const HpVec& b) {
  Hp s = 0;
  for (std::size_t k = 0; k < a.size(); ++k) s += a[k] * b[k];
  return s;
}

// SA_i = rho x_i + V sum_l pi_il x_l, pi_il = exp(s_il / tau) / sum_m exp(s_im / tau), s_il = <A x_i, x_l>.
inline std::vector<HpVec> softmax_attention_hp(const SelfAttention<Rational>& sa, const std::vector<HpVec>& X,
                                        const Rational& tau) {
  std::vector<HpVec> out;
  for (const auto& xi : X) {
    const HpVec Axi = apply_hp(sa.A, xi);
    std::vector<Hp> e;
    for (const auto& xl : X) e.push_back(exp(dot_hp(Axi, xl) / hp(tau)));
    Hp z = 0;
    for (const auto& v : e) z += v;
    HpVec mix(xi.size(), Hp(0));
    for (std::size_t l = 0; l < X.size(); ++l)
      for (std::size_t k = 0; k < xi.size(); ++k) mix[k] += e[l] / z * X[l][k];
    const HpVec vm = apply_hp(sa.V, mix);
    HpVec o(xi.size());
    for (std::size_t k = 0; k < xi.size(); ++k) o[k] = hp(sa.rho) * xi[k] + vm[k];
    out.push_back(o);
  }
  return out;
}

inline HpVec ff_hp(const FeedForward<Rational>& ff, const HpVec& x) {
  HpVec y(x.size());
  for (std::size_t k = 0; k < x.size(); ++k) y[k] = hp(ff.eta) * x[k];
  for (Eigen::Index i = 0; i < ff.U.rows(); ++i) {
    Hp z = hp(ff.b[i]);
    for (std::size_t k = 0; k < x.size(); ++k) z += hp(ff.U(i, static_cast<Eigen::Index>(k))) * x[k];
    if (z > 0)
      for (std::size_t k = 0; k < x.size(); ++k) y[k] += hp(ff.W(static_cast<Eigen::Index>(k), i)) * z;
  }
  return y;
}

inline std::vector<HpVec> to_hp(const Sequence& X) {
  std::vector<HpVec> out;
  for (const auto& x : X) {
    HpVec v;
    for (Eigen::Index k = 0; k < x.size(); ++k) v.push_back(hp(x[k]));
    out.push_back(v);
  }
  return out;
}

inline std::vector<HpVec> softmax_forward_hp(const Transformer<Rational>& m, const Sequence& input, const Rational& tau) {
  auto X = to_hp(input);
  for (const auto& b : m.blocks) {
    X = softmax_attention_hp(b.sa, X, tau);
    for (auto& x : X) x = ff_hp(b.ff, x);
  }
  return X;
}

// v is the 500-bit reference, itself rounded (relative error far below 2^-400): the slack
// only absorbs that, never the enclosure's own width (at most 128 bits here).
inline bool between_hp(const Rational& lo, const Rational& hi, const Hp& v) {
  const Hp slack = ldexp(Hp(1) + abs(v), -400);
  return hp(lo) - slack <= v && v <= hp(hi) + slack;
}
inline bool contains_hp(const Interval& x, const Hp& v) { return between_hp(x.lower(), x.upper(), v); }

}  // namespace seqi_test::general_models
