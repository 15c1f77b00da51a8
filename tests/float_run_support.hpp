// Helpers shared by the float-run suites (test_float_run, test_float_run_placement,
// test_float_run_facts): independent oracles of the float and exact runs, the seeded random
// draws (SEQI_SEED=<seed> replays them) and the checks of a float-run bound against them.
#pragma once
#include <boost/test/unit_test.hpp>

#include <boost/multiprecision/mpfr.hpp>
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <iostream>
#include <random>
#include <string>
#include <vector>

#include "seqi/certification/run_report.hpp"
#include "seqi/replay/float_replay.hpp"
#include "seqi/float_statement/float_run.hpp"
#include "seqi/construction/construction.hpp"
#include "seqi/io/dataset_json.hpp"

namespace seqi_test::float_run {

using namespace seqi;

// ---------------------------------------------------------------------------------------------
// Independent oracles, written from Definition def:model / def:float-run, not from the engine.
// ---------------------------------------------------------------------------------------------

// 500 bits: the reference for softmax (exact up to ~1e-150, far below any delta).
using Big = boost::multiprecision::number<boost::multiprecision::mpfr_float_backend<151>, boost::multiprecision::et_off>;

enum class Order { forward, reverse, pairwise };

// The oracle below runs in F = double (binary64) or float (binary32): each operation of F is
// correctly rounded to nearest, std::exp(F) is the platform's exp or expf.
template <class F>
F sum_in_order(std::vector<F> t, Order order) {
  if (t.empty()) return 0;
  if (order == Order::reverse) std::reverse(t.begin(), t.end());
  if (order != Order::pairwise) {
    F s = t[0];
    for (std::size_t i = 1; i < t.size(); ++i) s += t[i];
    return s;
  }
  while (t.size() > 1) {
    std::vector<F> next;
    for (std::size_t i = 0; i + 1 < t.size(); i += 2) next.push_back(t[i] + t[i + 1]);
    if (t.size() % 2) next.push_back(t.back());
    t = std::move(next);
  }
  return t[0];
}

// Correctly rounded to nearest F.
template <class F = double>
F nearest(const Rational& x) {
  return scalar_from_rational<F>(x);
}

using DVec = std::vector<double>;

// Structured product fl(alpha x + sum p (q . x)) with the given summation order.
template <class F>
std::vector<F> structured_float(const StructuredMatrix<Rational>& M, const std::vector<F>& x, Order o) {
  std::vector<F> c;
  for (const auto& t : M.terms) {
    std::vector<F> terms;
    for (std::size_t k = 0; k < x.size(); ++k) terms.push_back(nearest<F>(t.q[static_cast<Eigen::Index>(k)]) * x[k]);
    c.push_back(sum_in_order(terms, o));
  }
  std::vector<F> y(x.size());
  for (std::size_t k = 0; k < x.size(); ++k) {
    std::vector<F> terms{nearest<F>(M.alpha) * x[k]};
    for (std::size_t t = 0; t < M.terms.size(); ++t)
      terms.push_back(nearest<F>(M.terms[t].p[static_cast<Eigen::Index>(k)]) * c[t]);
    y[k] = sum_in_order(terms, o);
  }
  return y;
}

template <class F>
F dot_float(const std::vector<F>& a, const std::vector<F>& b, Order o) {
  std::vector<F> t;
  for (std::size_t k = 0; k < a.size(); ++k) t.push_back(a[k] * b[k]);
  return sum_in_order(t, o);
}

// Feed-forward layer fl(eta x + W relu(U x + b)); the float pre-activations go to *pre if given.
template <class F>
std::vector<F> ff_float(const FeedForward<Rational>& ff, const std::vector<F>& x, Order o,
                        std::vector<F>* pre = nullptr) {
  const std::size_t d = x.size();
  std::vector<F> act;
  for (Eigen::Index k = 0; k < ff.U.rows(); ++k) {
    std::vector<F> t;
    for (std::size_t c = 0; c < d; ++c) t.push_back(nearest<F>(ff.U(k, static_cast<Eigen::Index>(c))) * x[c]);
    t.push_back(nearest<F>(ff.b[k]));
    const F p = sum_in_order(t, o);
    if (pre) pre->push_back(p);
    act.push_back(std::max(p, F(0)));
  }
  std::vector<F> y(d);
  for (std::size_t c = 0; c < d; ++c) {
    std::vector<F> t{nearest<F>(ff.eta) * x[c]};
    for (std::size_t k = 0; k < act.size(); ++k)
      t.push_back(nearest<F>(ff.W(static_cast<Eigen::Index>(c), static_cast<Eigen::Index>(k))) * act[k]);
    y[c] = sum_in_order(t, o);
  }
  return y;
}

inline DVec ff_double(const FeedForward<Rational>& ff, const DVec& x, Order o, DVec* pre = nullptr) {
  return ff_float<double>(ff, x, o, pre);
}

// The attended average m_i of def:float-run (hardmax ties averaged; softmax at tau).
template <class F>
std::vector<F> attended_float(const std::vector<std::vector<F>>& X, const std::vector<F>& s_in, Setting kind,
                              const Rational& tau, Order o) {
  const std::size_t d = X[0].size();
  std::vector<F> s = s_in, m(d);
  if (kind == Setting::hardmax) {
    const F top = *std::max_element(s.begin(), s.end());
    for (std::size_t c = 0; c < d; ++c) {
      std::vector<F> t;
      for (std::size_t l = 0; l < X.size(); ++l)
        if (s[l] == top) t.push_back(X[l][c]);
      m[c] = sum_in_order(t, o) / static_cast<F>(t.size());
    }
    return m;
  }
  const F th = nearest<F>(tau);
  for (auto& x : s) x = x / th;
  const F top = *std::max_element(s.begin(), s.end());
  std::vector<F> w;
  for (F x : s) w.push_back(std::exp(x - top));
  const F Z = sum_in_order(w, o);
  for (std::size_t c = 0; c < d; ++c) {
    std::vector<F> t;
    for (std::size_t l = 0; l < X.size(); ++l) t.push_back(w[l] * X[l][c]);
    m[c] = sum_in_order(t, o) / Z;
  }
  return m;
}

// The float run of def:float-run in F, with the given summation order; outputs in double.
template <class F = double>
std::vector<DVec> float_forward(const Transformer<Rational>& model, const Sequence& input, Setting kind,
                                const Rational& tau, Order o) {
  std::vector<std::vector<F>> X;
  for (const auto& x : input) {
    std::vector<F> v;
    for (Eigen::Index k = 0; k < x.size(); ++k) v.push_back(nearest<F>(x[k]));
    X.push_back(v);
  }
  const std::size_t d = X[0].size();
  for (const auto& b : model.blocks) {
    const auto& sa = b.sa;
    if (!sa.V.is_zero() || sa.rho != 1) {
      std::vector<std::vector<F>> out;
      for (std::size_t i = 0; i < X.size(); ++i) {
        std::vector<F> v(d, F(0));
        if (!sa.V.is_zero()) {
          const std::vector<F> a = structured_float(sa.A, X[i], o);
          std::vector<F> s;
          for (const auto& xl : X) s.push_back(dot_float(a, xl, o));
          v = structured_float(sa.V, attended_float(X, s, kind, tau, o), o);
        }
        std::vector<F> y(d);
        for (std::size_t c = 0; c < d; ++c)
          y[c] = sa.V.is_zero() ? nearest<F>(sa.rho) * X[i][c] : sum_in_order<F>({nearest<F>(sa.rho) * X[i][c], v[c]}, o);
        out.push_back(y);
      }
      X = std::move(out);
    }
    for (auto& x : X) x = ff_float(b.ff, x, o);
  }
  std::vector<DVec> out;
  for (const auto& x : X) out.emplace_back(x.begin(), x.end());
  return out;
}

// The exact run in Big (hardmax decided on exact rationals, softmax weights at 500 bits).
template <class S>
inline Vec<S> cast(const Point& p) {
  Vec<S> v(p.size());
  for (Eigen::Index k = 0; k < p.size(); ++k) v[k] = S(p[k]);
  return v;
}

inline std::vector<Vec<Big>> exact_forward(const Transformer<Rational>& model, const Sequence& input, Setting kind,
                                    const Rational& tau) {
  if (kind == Setting::hardmax) {  // exact rationals throughout
    std::vector<Point> X = input;
    for (const auto& b : model.blocks) {
      if (!b.sa.V.is_zero()) {
        std::vector<Point> out;
        for (const auto& xi : X) {
          const Point a = b.sa.A.apply(xi);
          std::vector<Rational> s;
          for (const auto& xl : X) s.push_back(dot(a, xl));
          const Rational top = *std::max_element(s.begin(), s.end());
          Point m = Point::Zero(xi.size());
          long count = 0;
          for (std::size_t l = 0; l < X.size(); ++l)
            if (s[l] == top) m += X[l], ++count;
          out.push_back(Point(xi * b.sa.rho + b.sa.V.apply(Point(m / Rational(count)))));
        }
        X = out;
      } else {
        for (auto& x : X) x = x * b.sa.rho;
      }
      for (auto& x : X) {
        Point y = x * b.ff.eta;
        for (Eigen::Index k = 0; k < b.ff.U.rows(); ++k) {
          const Rational pre = dot(Point(b.ff.U.row(k).transpose()), x) + b.ff.b[k];
          if (pre > 0) y += b.ff.W.col(k) * pre;
        }
        x = y;
      }
    }
    std::vector<Vec<Big>> out;
    for (const auto& x : X) out.push_back(cast<Big>(x));
    return out;
  }
  std::vector<Vec<Big>> X;
  for (const auto& x : input) X.push_back(cast<Big>(x));
  const Big t(tau);
  auto apply = [](const StructuredMatrix<Rational>& M, const Vec<Big>& x) {
    Vec<Big> y = x * Big(M.alpha);
    for (const auto& term : M.terms) y += cast<Big>(term.p) * cast<Big>(term.q).dot(x);
    return y;
  };
  for (const auto& b : model.blocks) {
    if (!b.sa.V.is_zero()) {
      std::vector<Vec<Big>> out;
      for (const auto& xi : X) {
        const Vec<Big> a = apply(b.sa.A, xi);
        std::vector<Big> s;
        for (const auto& xl : X) s.push_back(a.dot(xl) / t);
        const Big top = *std::max_element(s.begin(), s.end());
        Vec<Big> m = Vec<Big>::Zero(xi.size());
        Big Z = 0;
        for (std::size_t l = 0; l < X.size(); ++l) {
          const Big w = exp(s[l] - top);
          Z += w;
          m += X[l] * w;
        }
        out.push_back(xi * Big(b.sa.rho) + apply(b.sa.V, Vec<Big>(m / Z)));
      }
      X = out;
    } else {
      for (auto& x : X) x = x * Big(b.sa.rho);
    }
    for (auto& x : X) {
      Vec<Big> y = x * Big(b.ff.eta);
      for (Eigen::Index k = 0; k < b.ff.U.rows(); ++k) {
        const Big pre = cast<Big>(Point(b.ff.U.row(k).transpose())).dot(x) + Big(b.ff.b[k]);
        if (pre > 0) y += cast<Big>(Point(b.ff.W.col(k))) * pre;
      }
      x = y;
    }
  }
  return X;
}

// ---------------------------------------------------------------------------------------------
// Random small models
// ---------------------------------------------------------------------------------------------

inline std::uint64_t base_seed(const char* who) {
  const char* s = std::getenv("SEQI_SEED");
  const std::uint64_t seed = s ? std::strtoull(s, nullptr, 10) : 20261130;
  std::cout << "float_run/" << who << ": SEQI_SEED=" << seed << " to replay\n";
  return seed;
}

struct Gen {
  std::mt19937_64 rng;
  long range(long lo, long hi) { return std::uniform_int_distribution<long>(lo, hi)(rng); }
  Rational q() { return Rational(range(-9, 9)) / Rational(range(1, 7)); }
  Point point(int d) {
    Point p(d);
    for (int k = 0; k < d; ++k) p[k] = q();
    return p;
  }
  StructuredMatrix<Rational> structured(int d, bool allow_alpha) {
    StructuredMatrix<Rational> m;
    if (allow_alpha) m.alpha = q();
    if (range(0, 1)) m.terms.push_back({point(d), point(d)});
    return m;
  }
  FeedForward<Rational> ff(int d) {
    FeedForward<Rational> f;
    const int w = static_cast<int>(range(0, 4));
    f.eta = q();
    f.U = Mat<Rational>(w, d);
    f.W = Mat<Rational>(d, w);
    f.b = Point(w);
    for (int k = 0; k < w; ++k) {
      f.b[k] = q();
      for (int c = 0; c < d; ++c) f.U.edit()(k, c) = q(), f.W.edit()(c, k) = q() / 4;
    }
    return f;
  }
};

// The hardmax float runs of `input` in three summation orders lie within delta of the exact run
// (per coordinate, compared in 151-bit MPFR); counts the runs.
inline void expect_hardmax_runs_within(const Transformer<Rational>& model, const Sequence& input, double delta, int trial,
                                std::size_t& runs) {
  const auto exact = exact_forward(model, input, Setting::hardmax, Rational(1));
  for (Order o : {Order::forward, Order::reverse, Order::pairwise}) {
    const auto fl = float_forward(model, input, Setting::hardmax, Rational(1), o);
    ++runs;
    for (std::size_t i = 0; i < fl.size(); ++i)
      for (std::size_t c = 0; c < fl[i].size(); ++c) {
        const Big err = abs(Big(fl[i][c]) - exact[i][static_cast<Eigen::Index>(c)]);
        BOOST_TEST((err <= Big(delta) + Big(1e-100)), "trial " << trial << ": float run off by "
                                                               << err.convert_to<double>() << " > delta " << delta);
      }
  }
}

// The plain double forward pass (the engine's cross-check formulas) lies within delta of a target.
// F: the format of the run (double or float); outputs compared in double.
template <class F = double>
void expect_float_outputs_near_targets(const Dataset& data, const Transformer<Rational>& model, double delta,
                                       const std::string& name) {
  const Transformer<F> dm = convert_model<F>(model);
  for (const auto& pair : data.pairs) {
    TokenList<F> X;
    for (const auto& x : pair.input) X.push_back(vector_from_rational<F>(x));
    for (const auto& y : forward_dense(dm, X)) {
      double best = 1e300;
      for (const auto& t : pair.output)
        best = std::min(best, (y.template cast<double>() - vector_from_rational<double>(t)).cwiseAbs().maxCoeff());
      BOOST_TEST(best <= delta, name << ": a float output is " << best << " from every target");
    }
  }
}

// Two bounds of the same float run state the same facts; same_failure_text = false: a failure in
// both or in neither (one may name "every token" of a sequence where the other names a token).
inline void expect_same_facts(const FloatRunFacts& a, const FloatRunFacts& b, bool same_failure_text = true) {
  BOOST_TEST(a.certified == b.certified, a.format);
  BOOST_TEST(a.delta == b.delta);
  BOOST_TEST(a.relative_delta == b.relative_delta);
  if (same_failure_text)
    BOOST_TEST(a.failure == b.failure);
  else
    BOOST_TEST(a.failure.empty() == b.failure.empty());
  BOOST_TEST(a.decisions == b.decisions);
  BOOST_TEST(a.kinks == b.kinks);
  BOOST_TEST(a.tokens_bounded == b.tokens_bounded);
  BOOST_TEST(a.tokens_charged == b.tokens_charged);
}

}  // namespace seqi_test::float_run
