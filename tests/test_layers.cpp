#define BOOST_TEST_MODULE layers
#include <boost/test/unit_test.hpp>

#include <cstdlib>
#include <initializer_list>
#include <iostream>
#include <random>
#include <string>

#include "seqi/numbers/interval.hpp"
#include "seqi/forward/carried_token.hpp"
#include "seqi/forward/exact_forward.hpp"
#include "seqi/certification/lemma_p.hpp"
#include "seqi/forward/one_direction_ff.hpp"
#include "seqi/forward/pattern_image.hpp"
#include "seqi/construction/construction.hpp"
#include "seqi/construction/hats.hpp"
#include "seqi/io/random_dataset.hpp"

using namespace seqi;

namespace {

Rational q(long a, long b = 1) { return Rational(a) / Rational(b); }

Point pt(std::initializer_list<Rational> xs) {
  Point p(static_cast<Eigen::Index>(xs.size()));
  Eigen::Index i = 0;
  for (const auto& x : xs) p[i++] = x;
  return p;
}

bool same(const Point& a, const Point& b) { return a.size() == b.size() && equal_points(a, b); }

#define CHECK_POINT(got, want)                                                                   \
  do {                                                                                           \
    const Point g_ = (got), w_ = (want);                                                         \
    BOOST_TEST(same(g_, w_), #got << " = " << to_string(g_) << ", expected " << to_string(w_)); \
  } while (0)

std::uint64_t base_seed(const char* who) {
  const char* s = std::getenv("SEQI_SEED");
  const std::uint64_t seed = s ? std::strtoull(s, nullptr, 10) : 20260517;
  std::cout << "layers/" << who << ": SEQI_SEED=" << seed << " to replay\n";
  return seed;
}

}  // namespace

// ---------------------------------------------------------------------------------------------
// Feed-forward and attention semantics
// ---------------------------------------------------------------------------------------------

BOOST_AUTO_TEST_CASE(feed_forward_hand_example) {
  // FF(x) = x/2 + W relu(U x + b), U = [[1,-1],[2,1]], b = (0,-3), W = [[1,0],[2,-1]].
  FeedForward<Rational> ff;
  ff.eta = q(1, 2);
  ff.U.resize(2, 2);
  ff.U << 1, -1, 2, 1;
  ff.b = pt({0, -3});
  ff.W.resize(2, 2);
  ff.W << 1, 0, 2, -1;
  BOOST_TEST(ff.width() == 2u);
  BOOST_TEST(ff.stored_scalars() == 1u + 4u + 2u + 4u);
  // Both units active: (1, 1/2) + 1*(1,2) + 2*(0,-1).
  CHECK_POINT(ff.apply(pt({2, 1})), pt({2, q(1, 2)}));
  // Both pre-activations exactly 0: relu(0) = 0, only eta*x remains.
  CHECK_POINT(ff.apply(pt({1, 1})), pt({q(1, 2), q(1, 2)}));
  // Unit 1 active (2/3), unit 2 inactive: (1/6,-1/6) + 2/3*(1,2).
  CHECK_POINT(ff.apply(pt({q(1, 3), q(-1, 3)})), pt({q(5, 6), q(7, 6)}));
  // Both inactive.
  CHECK_POINT(ff.apply(pt({-1, 1})), pt({q(-1, 2), q(1, 2)}));
}

BOOST_AUTO_TEST_CASE(structured_matrix_apply) {
  StructuredMatrix<Rational> M{2, {{pt({1, -1}), pt({0, 3})}}};  // 2I + (1,-1)(0,3)^T
  CHECK_POINT(M.apply(pt({1, 2})), pt({8, -2}));
  BOOST_TEST(M.stored_scalars(2) == 5u);
  BOOST_TEST(M.stored_norm_sq() == 4 + 2 + 9);
  BOOST_TEST(StructuredMatrix<Rational>::zero().is_zero());
  CHECK_POINT(StructuredMatrix<Rational>::scaled_identity(q(1, 3)).apply(pt({3, -6})), pt({1, -2}));
}

BOOST_AUTO_TEST_CASE(hardmax_tie_gives_exact_average_and_unique_argmax) {
  // A = e1 (1,1)^T: s_il = (x_i1 + x_i2) * x_l1. Tokens a=(3,0), b=(3,5), c=(1,-2).
  // a, b (positive q.x): best x_l1 = 3 is tied between a and b -> average (3, 5/2).
  // c (q.c = -1): best is min x_l1, uniquely c.
  SelfAttention<Rational> sa{q(1, 2), StructuredMatrix<Rational>::rank_one(pt({1, 0}), pt({1, 1})),
                             StructuredMatrix<Rational>::scaled_identity(1)};
  const TokenList<Rational> X{pt({3, 0}), pt({3, 5}), pt({1, -2})};
  const auto Y = apply_hardmax(sa, X);
  BOOST_TEST_REQUIRE(Y.size() == 3u);
  CHECK_POINT(Y[0], pt({q(9, 2), q(5, 2)}));
  CHECK_POINT(Y[1], pt({q(9, 2), 5}));
  CHECK_POINT(Y[2], pt({q(3, 2), -3}));
}

BOOST_AUTO_TEST_CASE(hardmax_structured_A_alpha_identity_plus_rank_one) {
  // A = I + e1 e2^T: A x = (x1 + x2, x2). Tokens a=(1,0), b=(0,1), c=(-1,1).
  // a: scores (1, 0, -1) -> a.  b: A b = (1,1), scores (1, 1, 0) -> tie a,b.
  // c: A c = (0,1), scores (0, 1, 1) -> tie b,c.  (With A = I alone, b would pick b only.)
  SelfAttention<Rational> sa{0, StructuredMatrix<Rational>{1, {{pt({1, 0}), pt({0, 1})}}},
                             StructuredMatrix<Rational>::scaled_identity(1)};
  const TokenList<Rational> X{pt({1, 0}), pt({0, 1}), pt({-1, 1})};
  const auto Y = apply_hardmax(sa, X);
  CHECK_POINT(Y[0], pt({1, 0}));
  CHECK_POINT(Y[1], pt({q(1, 2), q(1, 2)}));
  CHECK_POINT(Y[2], pt({q(-1, 2), 1}));

  // Same scores, V rank one (2,1)(1,-1)^T and rho = -1/3: y_i = -x_i/3 + (2,1) * ((1,-1).avg_i).
  sa.rho = q(-1, 3);
  sa.V = StructuredMatrix<Rational>::rank_one(pt({2, 1}), pt({1, -1}));
  const auto Z = apply_hardmax(sa, X);
  CHECK_POINT(Z[0], pt({q(-1, 3) + 2, 1}));
  CHECK_POINT(Z[1], pt({0, q(-1, 3)}));
  CHECK_POINT(Z[2], pt({q(1, 3) - 3, q(-1, 3) - q(3, 2)}));
}

BOOST_AUTO_TEST_CASE(hardmax_A_zero_is_mean_attention) {
  const TokenList<Rational> X{pt({1, 0}), pt({0, 1}), pt({-1, 1})};  // mean (0, 2/3)
  SelfAttention<Rational> sa{3, StructuredMatrix<Rational>::zero(),
                             StructuredMatrix<Rational>::rank_one(pt({1, 2}), pt({1, 1}))};
  BOOST_TEST(sa.is_mean_shift());
  const Point shift = pt({q(2, 3), q(4, 3)});  // V mean = (1,2) * 2/3
  const auto Y = apply_hardmax(sa, X);
  for (std::size_t i = 0; i < X.size(); ++i) CHECK_POINT(Y[i], Point(X[i] * Rational(3) + shift));
  // An A that is zero as a matrix but not stored as zero takes the generic path: all scores
  // tie, so the average over everything is again the exact mean.
  SelfAttention<Rational> generic = sa;
  generic.A = StructuredMatrix<Rational>::rank_one(pt({0, 0}), pt({5, -7}));
  BOOST_TEST(!generic.is_mean_shift());
  const auto Z = apply_hardmax(generic, X);
  for (std::size_t i = 0; i < X.size(); ++i) CHECK_POINT(Z[i], Y[i]);
  // Single-token sequence: its own mean.
  const auto W = apply_hardmax(sa, TokenList<Rational>{pt({q(1, 7), 2})});
  CHECK_POINT(W[0], Point(pt({q(3, 7), 6}) + pt({q(15, 7), q(30, 7)})));
}

BOOST_AUTO_TEST_CASE(hardmax_identity_attention_returns_input) {
  const TokenList<Rational> X{pt({q(1, 3), 0}), pt({0, q(-5, 2)}), pt({7, 1})};
  auto id = SelfAttention<Rational>::identity();
  BOOST_TEST(id.is_identity());
  auto Y = apply_hardmax(id, X);
  for (std::size_t i = 0; i < X.size(); ++i) CHECK_POINT(Y[i], X[i]);
  // rho = 1, V = 0 with a nonzero A is still the identity.
  SelfAttention<Rational> sa{1, StructuredMatrix<Rational>{2, {{pt({1, 1}), pt({1, -1})}}},
                             StructuredMatrix<Rational>::zero()};
  BOOST_TEST(sa.is_identity());
  Y = apply_hardmax(sa, X);
  for (std::size_t i = 0; i < X.size(); ++i) CHECK_POINT(Y[i], X[i]);
}

// ---------------------------------------------------------------------------------------------
// Hats (construction/hats.hpp)
// ---------------------------------------------------------------------------------------------

BOOST_AUTO_TEST_CASE(hat_layer_moves_exactly_one_reading) {
  const Point r = pt({1, 2});
  const Point qpt = pt({1, 1});  // t_q = 3
  const Rational t_q = dot(r, qpt), delta = q(1, 2);
  const Point D = pt({-2, q(5, 3)});
  const auto ff = hat_layer(r, t_q, delta, D);
  BOOST_TEST(ff.width() == 3u);
  BOOST_TEST(ff.eta == 1);
  CHECK_POINT(ff.apply(qpt), Point(qpt + D));
  CHECK_POINT(ff.apply(pt({3, 0})), Point(pt({3, 0}) + D));  // another point with reading t_q
  // |r.x - t_q| >= delta: unchanged, including exactly at distance delta.
  for (const Point& x : {pt({q(3, 2), 1}), pt({q(1, 2), 1}), pt({100, 7}), pt({-50, 3}), pt({0, 0}),
                         pt({q(7, 2), 0}), pt({q(5, 2), 0}), pt({q(1000001, 1000), 5})})
    CHECK_POINT(ff.apply(x), x);
  // Distance delta/2 on both sides: moved by D/2; distance 3 delta/4: by D/4.
  CHECK_POINT(ff.apply(pt({q(5, 4), 1})), Point(pt({q(5, 4), 1}) + D / Rational(2)));
  CHECK_POINT(ff.apply(pt({q(3, 4), 1})), Point(pt({q(3, 4), 1}) + D / Rational(2)));
  CHECK_POINT(ff.apply(pt({q(11, 8), 1})), Point(pt({q(11, 8), 1}) + D / Rational(4)));
}

BOOST_AUTO_TEST_CASE(flat_hat_layer_collapses_its_window) {
  const Point v = pt({1, 2, -1});
  const Point r = pt({1, 1, 2});
  BOOST_TEST_REQUIRE(dot(r, v) == 1);  // precondition r.v = 1
  const Point u = pt({2, 0, -1});      // r.u = 0: moves off the line without changing the reading
  BOOST_TEST_REQUIRE(dot(r, u) == 0);
  const Point y = pt({2, -1, q(7, 2)});
  for (const auto& [z, df] : {std::pair{q(5, 3), q(1, 4)}, std::pair{q(-7, 2), q(1, 1024)},
                              std::pair{Rational(0), q(3, 1)}}) {
    BOOST_TEST_CONTEXT("z = " << z << ", df = " << df) {
      const auto ff = flat_hat_layer(r, v, z, df, y);
      BOOST_TEST(ff.width() == 4u);
      for (const Rational& t : {z - df, z + df, z, z - df / 3, z + df * q(5, 7), z - df * q(999, 1000)}) {
        const Point x = v * t;
        BOOST_TEST(dot(r, x) == t);
        CHECK_POINT(ff.apply(x), y);
      }
      for (const Rational& t : {z - 2 * df, z + 2 * df, z - 2 * df - q(1, 1000), z + 2 * df + q(1, 3), z + 10,
                                z - 100, Rational(10000)}) {
        const Point x = v * t;
        CHECK_POINT(ff.apply(x), x);
        const Point xo = x + u;  // same reading, off the line
        CHECK_POINT(ff.apply(xo), xo);
      }
    }
  }
}

BOOST_AUTO_TEST_CASE(shrink_hat_layer_shrinks_and_places_leader) {
  const Point r = pt({1, 3});
  const Point leader = pt({3, 2});  // t_q = 9
  const Point place = pt({9, 0});
  const Rational eps = q(1, 4), delta = 1;
  const Point C_e1 = pt({4, 0});
  const Point D = place - (leader * eps + C_e1);  // (17/4, -1/2)
  CHECK_POINT(D, pt({q(17, 4), q(-1, 2)}));
  const auto ff = shrink_hat_layer(r, dot(r, leader), delta, D, eps, C_e1);
  BOOST_TEST(ff.width() == 4u);
  BOOST_TEST(ff.eta == eps);
  CHECK_POINT(ff.apply(leader), place);
  // Unmoved tokens (readings 0, 4, 13, exactly 8 = t_q - delta, 10 = t_q + delta, far right 1003).
  for (const Point& x : {pt({0, 0}), pt({1, 1}), pt({-2, 5}), pt({7, q(1, 3)}), pt({4, 2}), pt({1000, 1})})
    CHECK_POINT(ff.apply(x), Point(x * eps + C_e1));
  CHECK_POINT(ff.apply(pt({1, 1})), pt({q(17, 4), q(1, 4)}));
  CHECK_POINT(ff.apply(pt({-2, 5})), pt({q(7, 2), q(5, 4)}));
}

BOOST_AUTO_TEST_CASE(identity_outside_breakpoints_forms) {
  const Point r = pt({1, 2});
  const auto hat = hat_layer(r, 3, q(1, 2), pt({-2, q(5, 3)}));
  const auto f = identity_outside_breakpoints(hat);
  BOOST_TEST_REQUIRE(f.has_value());
  CHECK_POINT(f->r, r);
  BOOST_TEST(f->lo == q(5, 2));
  BOOST_TEST(f->hi == q(7, 2));
  BOOST_TEST(f->slope.size() == 3u);
  for (const auto& s : f->slope) BOOST_TEST(s == 1);

  const Point v = pt({1, 2, -1}), rf = pt({1, 1, 2});
  const Rational z = q(5, 3), df = q(1, 4);
  const auto flat = flat_hat_layer(rf, v, z, df, pt({2, -1, q(7, 2)}));
  const auto g = identity_outside_breakpoints(flat);
  BOOST_TEST_REQUIRE(g.has_value());
  CHECK_POINT(g->r, rf);
  BOOST_TEST(g->lo == z - 2 * df);
  BOOST_TEST(g->hi == z + 2 * df);

  // A row that is a multiple of r (same function: row 2r, offset doubled, column halved).
  auto scaled = hat;
  scaled.U.row(1) *= Rational(2);
  scaled.b[1] *= Rational(2);
  scaled.W.col(1) /= Rational(2);
  for (const Point& x : {pt({1, 1}), pt({q(5, 4), 1}), pt({9, 9})}) CHECK_POINT(scaled.apply(x), hat.apply(x));
  const auto h = identity_outside_breakpoints(scaled);
  BOOST_TEST_REQUIRE(h.has_value());
  BOOST_TEST(h->slope[1] == 2);
  BOOST_TEST(h->lo == q(5, 2));
  BOOST_TEST(h->hi == q(7, 2));

  // eta != 1 (shrink layer): not identity outside.
  BOOST_TEST(!identity_outside_breakpoints(
                  shrink_hat_layer(r, 3, q(1, 2), pt({1, 1}), q(1, 4), pt({4, 0})))
                  .has_value());
  // Rows not parallel.
  auto skew = hat;
  skew.U.row(1) = pt({2, 1}).transpose();
  BOOST_TEST(!identity_outside_breakpoints(skew).has_value());
  // A single ReLU: the identity on the left but not far right.
  FeedForward<Rational> ramp;
  ramp.U.resize(1, 2);
  ramp.U << 1, 2;
  ramp.b = pt({-1});
  ramp.W.resize(2, 1);
  ramp.W << 1, 0;
  BOOST_TEST(!identity_outside_breakpoints(ramp).has_value());
  // A reversed ReLU: the identity on the right, not on the left.
  ramp.U << -1, -2;
  BOOST_TEST(!identity_outside_breakpoints(ramp).has_value());
  // Hat with its last unit dropped: wrong far right.
  auto cut = hat;
  cut.W.col(2).setZero();
  BOOST_TEST(!identity_outside_breakpoints(cut).has_value());
  // No breakpoints (U = 0) and width 0: nullopt.
  FeedForward<Rational> zero_u = hat;
  zero_u.U.setZero();
  BOOST_TEST(!identity_outside_breakpoints(zero_u).has_value());
  FeedForward<Rational> empty;
  empty.U.resize(0, 2);
  empty.b.resize(0);
  empty.W.resize(2, 0);
  BOOST_TEST(!identity_outside_breakpoints(empty).has_value());
}

// ---------------------------------------------------------------------------------------------
// ExactForward (sparse) against forward_dense
// ---------------------------------------------------------------------------------------------

namespace {

struct Gen {
  std::mt19937_64 eng;
  long integer(long lo, long hi) { return std::uniform_int_distribution<long>(lo, hi)(eng); }
  Rational rat(long range, long max_den) { return Rational(integer(-range, range), integer(1, max_den)); }
  Point vec(int d, long range, long max_den) {
    Point p(d);
    for (int k = 0; k < d; ++k) p[k] = rat(range, max_den);
    return p;
  }
  Point nonzero_int_vec(int d, long range) {
    for (;;) {
      Point p = vec(d, range, 1);
      if (!p.isZero()) return p;
    }
  }
  bool coin(int percent) { return integer(0, 99) < percent; }
};

// All tokens of the state after the blocks so far (dense reference).
TokenState dense_state(const std::vector<TokenList<Rational>>& seqs) {
  TokenState s;
  for (const auto& X : seqs) {
    s.tokens.insert(s.tokens.end(), X.begin(), X.end());
    s.begin.push_back(s.tokens.size());
  }
  return s;
}

}  // namespace

BOOST_AUTO_TEST_CASE(exact_forward_matches_dense_on_random_transformers) {
  const auto seed = base_seed("random transformers");
  Gen gen{std::mt19937_64(seed)};
  ForwardStats total;
  std::size_t total_tokens_layers = 0, moved_by_sparse = 0;
  for (int trial = 0; trial < 100; ++trial) {
    const int d = static_cast<int>(gen.integer(2, 3));
    const std::size_t N = static_cast<std::size_t>(gen.integer(1, 4));
    std::vector<TokenList<Rational>> seqs(N);
    for (auto& X : seqs) {
      const long n = gen.integer(1, 5);
      for (long i = 0; i < n; ++i) X.push_back(gen.vec(d, 4, 3));
    }
    // Two reading directions, each with a direction v, r.v = 1 (r = r0 + (1 - r0.v) v / |v|^2).
    std::vector<std::pair<Point, Point>> dirs;
    for (int k = 0; k < 2; ++k) {
      const Point v = gen.nonzero_int_vec(d, 2);
      const Point r0 = gen.nonzero_int_vec(d, 2);
      Point r = r0 + v * ((1 - dot(r0, v)) / norm_sq(v));
      dirs.emplace_back(r, v);
    }
    Transformer<Rational> model{d, {}};
    ExactForward pass(dense_state(seqs));
    const int L = static_cast<int>(gen.integer(3, 8));
    BOOST_TEST_CONTEXT("trial " << trial << " (seed " << seed << ")") {
      for (int b = 0; b < L; ++b) {
        Block<Rational> block;
        const auto& [r, v] = dirs[static_cast<std::size_t>(gen.integer(0, 1))];
        switch (gen.integer(0, 5)) {
          case 0: case 1: block.sa = SelfAttention<Rational>::identity(); break;
          case 2:  // mean shift
            block.sa = {gen.rat(2, 2), StructuredMatrix<Rational>::zero(),
                        StructuredMatrix<Rational>::rank_one(gen.vec(d, 2, 2), gen.vec(d, 2, 1))};
            break;
          case 3:  // collapse onto R v
            block.sa = {0, StructuredMatrix<Rational>::scaled_identity(gen.integer(1, 2)),
                        StructuredMatrix<Rational>::rank_one(v, gen.nonzero_int_vec(d, 3))};
            break;
          default:  // general attention
            block.sa = {gen.rat(2, 2),
                        StructuredMatrix<Rational>{gen.rat(2, 1), {{gen.vec(d, 2, 1), gen.vec(d, 2, 1)}}},
                        gen.coin(50) ? StructuredMatrix<Rational>::scaled_identity(gen.rat(2, 2))
                                     : StructuredMatrix<Rational>::rank_one(gen.vec(d, 2, 2), gen.vec(d, 2, 1))};
        }
        // Readings after this block's attention, to aim the feed-forward layer at tokens.
        std::vector<TokenList<Rational>> mid;
        for (const auto& X : seqs) mid.push_back(apply_hardmax(block.sa, X));
        const auto mid_state = dense_state(mid);
        const Point& target = mid_state.tokens[static_cast<std::size_t>(
            gen.integer(0, static_cast<long>(mid_state.tokens.size()) - 1))];
        const Rational aim = gen.coin(75) ? dot(r, target) : gen.rat(6, 2);
        switch (gen.integer(0, 5)) {
          case 0: case 1:
            block.ff = hat_layer(r, aim, Rational(1, gen.integer(1, 4)), gen.vec(d, 3, 2));
            break;
          case 2: case 3:
            block.ff = flat_hat_layer(r, v, aim, Rational(1, gen.integer(1, 8)), gen.vec(d, 3, 2));
            break;
          case 4:
            block.ff = shrink_hat_layer(r, aim, 1, gen.vec(d, 2, 1), Rational(1, 2), gen.vec(d, 4, 1));
            break;
          default: {  // a general dense layer, width 2
            FeedForward<Rational> ff;
            ff.eta = gen.rat(2, 2);
            ff.U.resize(2, d);
            ff.W.resize(d, 2);
            ff.b = gen.vec(2, 2, 2);
            for (int i = 0; i < 2; ++i) {
              ff.U.row(i) = gen.vec(d, 2, 1).transpose();
              ff.W.col(i) = gen.vec(d, 2, 2);
            }
            block.ff = ff;
          }
        }
        model.blocks.push_back(block);
        pass.apply_block(block);
        for (auto& X : mid)
          for (auto& x : X) {
            Point y = block.ff.apply(x);
            if (identity_outside_breakpoints(block.ff) && !same(x, y)) ++moved_by_sparse;
            x = std::move(y);
          }
        seqs = std::move(mid);
        const auto want = dense_state(seqs);
        BOOST_TEST_REQUIRE(pass.state().tokens.size() == want.tokens.size());
        BOOST_TEST_REQUIRE((pass.state().begin == want.begin));
        bool all = true;
        for (std::size_t i = 0; i < want.tokens.size(); ++i)
          if (!same(pass.state().tokens[i], want.tokens[i])) {
            all = false;
            BOOST_TEST(false, "block " << b << ", token " << i << ": sparse " << to_string(pass.state().tokens[i])
                                      << " vs dense " << to_string(want.tokens[i]));
          }
        if (!all) break;
        total_tokens_layers += want.tokens.size();
      }
    }
    const auto& st = pass.stats();
    total.ff_sparse_layers += st.ff_sparse_layers;
    total.ff_dense_layers += st.ff_dense_layers;
    total.ff_tokens_evaluated += st.ff_tokens_evaluated;
    total.attention_layers_skipped += st.attention_layers_skipped;
  }
  // The random models did exercise the sparse path and skipped tokens.
  BOOST_TEST(total.ff_sparse_layers > 0u);
  BOOST_TEST(total.ff_dense_layers > 0u);
  BOOST_TEST(total.attention_layers_skipped > 0u);
  BOOST_TEST(total.ff_tokens_evaluated < total_tokens_layers);
  BOOST_TEST(moved_by_sparse > 0u);  // the one-direction layers did act on some tokens
  std::cout << "  sparse layers " << total.ff_sparse_layers << ", dense " << total.ff_dense_layers
            << ", tokens moved by sparse layers " << moved_by_sparse << "\n";
}

// PatternImage (one update per token from its activation pattern) against the dense definition
// ff.apply on random one-direction layers: widths 1 to 6, zero slopes (constant units), sparse W,
// eta != 1, and tokens read exactly at a breakpoint (a unit with pre-activation 0 is inactive).
BOOST_AUTO_TEST_CASE(pattern_image_equals_the_dense_layer) {
  const auto seed = base_seed("pattern image");
  Gen gen{std::mt19937_64(seed)};
  std::size_t at_breakpoint = 0;
  for (int trial = 0; trial < 200; ++trial) {
    const int d = static_cast<int>(gen.integer(2, 5));
    const auto w = static_cast<Eigen::Index>(gen.integer(1, 6));
    const Point r = gen.nonzero_int_vec(d, 3);
    FeedForward<Rational> ff;
    ff.eta = gen.coin(30) ? Rational(1) : gen.rat(3, 4);
    ff.U.resize(w, d);
    ff.W.resize(d, w);
    ff.b.resize(w);
    for (Eigen::Index k = 0; k < w; ++k) {
      const Rational slope = gen.coin(20) ? Rational(0) : gen.rat(3, 2);
      ff.U.row(k) = (r * slope).transpose();
      ff.b[k] = gen.rat(4, 3);
      for (int c = 0; c < d; ++c) ff.W(c, k) = gen.coin(40) ? Rational(0) : gen.rat(3, 3);
    }
    const auto form = one_direction_form(ff);
    if (!form) continue;  // every slope 0: no direction
    const PatternImage image(ff, *form);
    BOOST_TEST_CONTEXT("trial " << trial << " (seed " << seed << ")") {
      for (int i = 0; i < 12; ++i) {
        Point x = gen.vec(d, 5, 3);
        const Eigen::Index k = static_cast<Eigen::Index>(gen.integer(0, w - 1));
        if (i % 3 == 0 && form->slope[static_cast<std::size_t>(k)] != 0) {
          // Move x along r onto unit k's breakpoint: r.x = -b_k / slope_k.
          const Rational target = -ff.b[k] / form->slope[static_cast<std::size_t>(k)];
          x += r * ((target - dot(form->r, x)) / dot(form->r, r));
          ++at_breakpoint;
        }
        CHECK_POINT(image(x, dot(form->r, x)), ff.apply(x));
      }
    }
  }
  BOOST_TEST(at_breakpoint > 100u);
}

BOOST_AUTO_TEST_CASE(exact_forward_whole_model_matches_forward_dense_per_sequence) {
  // forward_dense on each input sequence separately against one ExactForward over all of them,
  // on hand-made transformers that reuse one direction (the reading index is kept across layers).
  const Point r = pt({1, 0}), v = pt({1, 1});
  BOOST_TEST_REQUIRE(dot(r, v) == 1);
  Transformer<Rational> model{2, {}};
  model.blocks.push_back({SelfAttention<Rational>::identity(), hat_layer(r, 1, q(1, 2), pt({2, 0})), Phase::user});
  // moves reading 1 to reading 3, where the next hat (same r) picks it up again
  model.blocks.push_back({SelfAttention<Rational>::identity(), hat_layer(r, 3, q(1, 2), pt({-1, 5})), Phase::user});
  model.blocks.push_back({{0, StructuredMatrix<Rational>::scaled_identity(1),
                           StructuredMatrix<Rational>::rank_one(v, pt({1, 2}))},
                          flat_hat_layer(r, v, 2, q(1, 4), pt({7, 7})), Phase::user});
  model.blocks.push_back({SelfAttention<Rational>::identity(), flat_hat_layer(r, v, 7, q(1, 4), pt({-1, 0})),
                          Phase::user});
  const std::vector<TokenList<Rational>> inputs{
      {pt({1, 0}), pt({2, 0}), pt({0, 1})}, {pt({1, 1}), pt({q(5, 4), 2})}, {pt({0, 0})}, {pt({3, -2}), pt({1, 5})}};
  TokenState s;
  for (const auto& X : inputs) {
    s.tokens.insert(s.tokens.end(), X.begin(), X.end());
    s.begin.push_back(s.tokens.size());
  }
  ExactForward pass(s);
  for (const auto& b : model.blocks) pass.apply_block(b);
  for (std::size_t j = 0; j < inputs.size(); ++j) {
    const auto want = forward_dense(model, inputs[j]);
    for (std::size_t i = 0; i < want.size(); ++i)
      BOOST_TEST_CONTEXT("sequence " << j + 1 << ", token " << i + 1)
    CHECK_POINT(pass.state().tokens[pass.state().begin[j] + i], want[i]);
  }
  BOOST_TEST(pass.stats().ff_sparse_layers == 4u);
  BOOST_TEST(pass.stats().attention_layers_skipped == 3u);
  BOOST_TEST(pass.stats().index_rebuilds <= 2u);  // reused across same-direction layers
}

BOOST_AUTO_TEST_CASE(exact_forward_matches_dense_on_built_constructions) {
  const auto seed = base_seed("built constructions");
  for (std::uint64_t k = 0; k < 8; ++k) {
    RandomDatasetSpec spec;
    spec.N = 2 + k % 4;
    spec.n_max = 2 + k % 5;
    spec.d = 2 + static_cast<int>(k % 3);
    spec.coordinate_range = 4;
    spec.max_denominator = 1 + static_cast<long>(k % 3);
    spec.share_probability = k % 2 ? 0.4 : 0.0;
    const auto data = random_dataset(spec, seed + k);
    BOOST_TEST_CONTEXT("dataset " << data.name) {
      const auto built = build_interpolating_transformer(data, seed + k);
      ExactForward pass(inputs_of(data));
      for (const auto& b : built.model.blocks) pass.apply_block(b);
      const auto& st = pass.state();
      BOOST_TEST_REQUIRE(st.sequences() == data.pairs.size());
      for (std::size_t j = 0; j < data.pairs.size(); ++j) {
        const auto want = forward_dense(built.model, data.pairs[j].input.points());
        BOOST_TEST_REQUIRE(st.size_of(j) == want.size());
        for (std::size_t i = 0; i < want.size(); ++i)
          BOOST_TEST_CONTEXT("sequence " << j + 1 << ", token " << i + 1)
        CHECK_POINT(st.tokens[st.begin[j] + i], want[i]);
      }
      BOOST_TEST(pass.stats().ff_sparse_layers > 0u);
    }
  }
}

// ---------------------------------------------------------------------------------------------
// apply_carried (lem:direction-carrying)
// ---------------------------------------------------------------------------------------------

BOOST_AUTO_TEST_CASE(carried_token_through_flat_hat) {
  const Point v = pt({1, 2, -1}), r = pt({1, 1, 2});
  BOOST_TEST_REQUIRE(dot(r, v) == 1);
  const Rational z = q(5, 3), df = q(1, 8);
  const Point y = pt({2, -1, q(7, 2)});
  const auto ff = flat_hat_layer(r, v, z, df, y);

  // p + c v, c in [z - df/2, z + df/2]: an exact point y.
  {
    const CarriedToken x = CarriedToken::enclosure(Point::Zero(3), v, z - df / 2, z + df / 2);
    const auto [rlo, rhi] = x.reading(r);
    BOOST_TEST(rlo == z - df / 2);
    BOOST_TEST(rhi == z + df / 2);
    std::size_t unit = 0;
    const auto out = apply_carried(ff, x, &unit);
    BOOST_TEST_REQUIRE(out.has_value());
    BOOST_TEST(out->is_exact());
    BOOST_TEST(!out->w);  // an exact point stores no direction
    CHECK_POINT(out->p, y);
  }
  // p itself on the line (p = v/3): c shifted accordingly; the whole flat [z - df, z + df].
  {
    const CarriedToken x = CarriedToken::enclosure(v / Rational(3), v, z - df - q(1, 3), z + df - q(1, 3));
    const auto out = apply_carried(ff, x, nullptr);
    BOOST_TEST_REQUIRE(out.has_value());
    BOOST_TEST(out->is_exact());
    CHECK_POINT(out->p, y);
  }
  // Direction w = -2v (the coefficient runs the other way).
  {
    const CarriedToken x = CarriedToken::enclosure(Point::Zero(3), Point(v * Rational(-2)), -(z + df / 3) / 2, -(z - df / 4) / 2);
    const auto out = apply_carried(ff, x, nullptr);
    BOOST_TEST_REQUIRE(out.has_value());
    BOOST_TEST(out->is_exact());
    CHECK_POINT(out->p, y);
  }
  // Entirely outside the window (right, left, touching the outer breakpoints): unchanged.
  for (const auto& [lo, hi] : {std::pair{z + 2 * df, z + 3 * df}, std::pair{z + 5, z + 7},
                               std::pair{z - 3 * df, z - 2 * df}, std::pair{z - 100, z - 99}}) {
    const Point p = pt({q(1, 2), 0, 1});  // r.p = 5/2, off the line
    const CarriedToken x = CarriedToken::enclosure(p, v, lo - q(5, 2), hi - q(5, 2));
    std::size_t unit = 0;
    const auto out = apply_carried(ff, x, &unit);
    BOOST_TEST_REQUIRE(out.has_value());
    CHECK_POINT(out->p, x.p);
    BOOST_TEST(out->w == x.w);  // the same direction object: no copy
    BOOST_TEST(out->lo == x.lo);
    BOOST_TEST(out->hi == x.hi);
  }
  // Straddling a breakpoint: nullopt naming the unit (1-based).
  struct Case {
    Rational lo, hi;
    std::size_t unit;
  };
  for (const auto& c : {Case{z - 3 * df, z - df - df / 2, 1}, Case{z - df - df / 2, z - df / 2, 2},
                        Case{z + df / 2, z + df + df / 2, 3}, Case{z + df + df / 2, z + 3 * df, 4}}) {
    BOOST_TEST_CONTEXT("enclosure [" << c.lo << ", " << c.hi << "]") {
      const CarriedToken x = CarriedToken::enclosure(Point::Zero(3), v, c.lo, c.hi);
      std::size_t unit = 0;
      const auto out = apply_carried(ff, x, &unit);
      BOOST_TEST(!out.has_value());
      BOOST_TEST(unit == c.unit);
    }
  }
  // An exact token behaves like FeedForward::apply.
  for (const Point& x : {Point(v * z), Point(v * (z + df * q(3, 2))), pt({1, 2, 3})}) {
    const auto out = apply_carried(ff, CarriedToken::exact(x), nullptr);
    BOOST_TEST_REQUIRE(out.has_value());
    BOOST_TEST(out->is_exact());
    BOOST_TEST(!out->w);  // no stored zero direction
    CHECK_POINT(out->p, ff.apply(x));
    const auto [rlo, rhi] = out->reading(v);
    BOOST_TEST(rlo == dot(v, out->p));
    BOOST_TEST(rhi == rlo);
  }
}

// ---------------------------------------------------------------------------------------------
// Lemma P on a built construction
// ---------------------------------------------------------------------------------------------

BOOST_AUTO_TEST_CASE(lemma_p_fast_and_brute_before_collapse) {
  const auto seed = base_seed("lemma P");
  int perturbed = 0;
  for (std::uint64_t k = 0; k < 6; ++k) {
    RandomDatasetSpec spec;
    spec.N = 3 + k % 3;
    spec.n_min = 2;
    spec.n_max = 4 + k % 3;
    spec.m_max = 1 + k % 3;
    spec.d = 2 + static_cast<int>(k % 2);
    spec.coordinate_range = 4;
    spec.share_probability = k % 2 ? 0.3 : 0.0;
    const auto data = random_dataset(spec, seed + 100 + k);
    BOOST_TEST_CONTEXT("dataset " << data.name) {
      const auto built = build_interpolating_transformer(data, seed + 100 + k);
      const auto& rec = built.record;
      BOOST_TEST_REQUIRE(rec.collapse_block < built.model.blocks.size());
      ExactForward pass(inputs_of(data));
      for (std::size_t b = 0; b < rec.collapse_block; ++b) pass.apply_block(built.model.blocks[b]);
      const TokenState before = pass.state();
      const auto& sa = built.model.blocks[rec.collapse_block].sa;
      BOOST_TEST_REQUIRE(sa.A.terms.empty());
      BOOST_TEST_REQUIRE(sa.A.alpha > 0);
      const Rational alpha = sa.A.alpha;
      const Point& a = rec.interpolation.a;

      const auto fast = check_lemma_p(before, rec.placement, alpha, a);
      const auto brute = check_lemma_p_brute(before, rec.placement, alpha, a);
      BOOST_TEST(fast.ok, fast.failure);
      BOOST_TEST(brute.ok, brute.failure);
      BOOST_TEST_REQUIRE(fast.margin.size() == data.pairs.size());
      BOOST_TEST_REQUIRE(brute.margin.size() == data.pairs.size());
      for (std::size_t j = 0; j < data.pairs.size(); ++j) {
        BOOST_TEST_CONTEXT("sequence " << j + 1) {
          BOOST_TEST(fast.margin[j].has_value() == (before.size_of(j) > 1));
          BOOST_TEST(brute.margin[j].has_value() == (before.size_of(j) > 1));
          if (fast.margin[j] && brute.margin[j]) {
            BOOST_TEST(*fast.margin[j] > 0);
            BOOST_TEST(*fast.margin[j] <= *brute.margin[j]);  // fast is a certified lower bound
          }
          BOOST_TEST(fast.spread[j] == brute.spread[j]);
        }
      }
      BOOST_TEST((fast.attends == brute.attends));

      // Move a non-leader onto a far point of the e1 axis: it now beats leader 1 everywhere.
      std::vector<bool> leader(before.tokens.size(), false);
      for (const auto& ls : rec.placement.leaders)
        for (std::size_t i : ls) leader[i] = true;
      Rational maxR = 0;
      for (const auto& R : rec.placement.R) maxR = std::max(maxR, R);
      for (std::size_t j = 0; j < before.sequences(); ++j) {
        std::size_t victim = before.tokens.size();
        for (std::size_t i = before.begin[j]; i < before.begin[j + 1]; ++i)
          if (!leader[i]) victim = i;
        if (victim == before.tokens.size()) continue;
        TokenState bad = before;
        bad.tokens[victim] = Point::Zero(data.dimension);
        bad.tokens[victim][0] = 1000 + 10 * maxR;
        const auto fb = check_lemma_p_brute(bad, rec.placement, alpha, a);
        BOOST_TEST(!fb.ok);
        const std::string name = "sequence " + std::to_string(j + 1) + ",";
        BOOST_TEST(fb.failure.find(name) != std::string::npos, "brute failure: " << fb.failure);
        const auto ff = check_lemma_p(bad, rec.placement, alpha, a);  // sound, so it must fail too
        BOOST_TEST(!ff.ok);
        BOOST_TEST(ff.failure.find(name) != std::string::npos, "fast failure: " << ff.failure);
        ++perturbed;
        break;
      }
    }
  }
  BOOST_TEST(perturbed > 0);
}

// Templates that branch on comparisons (ReLU signs, argmax) accept only scalars whose
// comparisons decide; intervals must go through the enclosure code paths instead.
BOOST_AUTO_TEST_CASE(comparison_templates_refuse_interval_scalars) {
  static_assert(OrderedScalar<Rational> && OrderedScalar<double> && OrderedScalar<float>);
  static_assert(!OrderedScalar<Interval>);
  static_assert(scalar_traits<Rational>::exact && !scalar_traits<double>::exact);
  static_assert(requires(const FeedForward<double>& f, const Vec<double>& x) { f.apply(x); });
  BOOST_TEST(!OrderedScalar<Interval>);
}
