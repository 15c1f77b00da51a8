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
#include "layers_support.hpp"

BOOST_AUTO_TEST_SUITE(test_exact_forward)

using namespace seqi;
using namespace seqi_test::layers;

namespace {

std::uint64_t base_seed(const char* who) {
  const char* s = std::getenv("SEQI_SEED");
  const std::uint64_t seed = s ? std::strtoull(s, nullptr, 10) : 20260517;
  std::cout << "layers/" << who << ": SEQI_SEED=" << seed << " to replay\n";
  return seed;
}

}  // namespace

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
            ff.U.edit().resize(2, d);
            ff.W.edit().resize(d, 2);
            ff.b = gen.vec(2, 2, 2);
            for (int i = 0; i < 2; ++i) {
              ff.U.edit().row(i) = gen.vec(d, 2, 1).transpose();
              ff.W.edit().col(i) = gen.vec(d, 2, 2);
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
    ff.U.edit().resize(w, d);
    ff.W.edit().resize(d, w);
    ff.b.resize(w);
    for (Eigen::Index k = 0; k < w; ++k) {
      const Rational slope = gen.coin(20) ? Rational(0) : gen.rat(3, 2);
      ff.U.edit().row(k) = (r * slope).transpose();
      ff.b[k] = gen.rat(4, 3);
      for (int c = 0; c < d; ++c) ff.W.edit()(c, k) = gen.coin(40) ? Rational(0) : gen.rat(3, 3);
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

BOOST_AUTO_TEST_CASE(one_token_per_sequence_only_where_the_tokens_are_one_point) {
  // A mean shift (A = 0, V = v a^T, rho = 0) makes every token of a sequence one point; one token
  // per sequence then carries the feed-forward layers after it to the dense result of every token.
  const Point r = pt({1, 0}), v = pt({1, 1});
  const SelfAttention<Rational> mean_shift{0, StructuredMatrix<Rational>(),
                                           StructuredMatrix<Rational>::rank_one(v, pt({1, 2}))};
  Transformer<Rational> model{2, {}};
  model.blocks.push_back({mean_shift, flat_hat_layer(r, v, 2, q(1, 4), pt({7, 7})), Phase::user});
  model.blocks.push_back({SelfAttention<Rational>::identity(), hat_layer(r, 9, q(1, 2), pt({-1, 5})), Phase::user});
  const std::vector<TokenList<Rational>> inputs{{pt({1, 0}), pt({2, 0}), pt({0, 1})}, {pt({q(5, 4), 2})}, {pt({0, 0}), pt({2, 1})}};
  TokenState s;
  for (const auto& X : inputs) {
    s.tokens.insert(s.tokens.end(), X.begin(), X.end());
    s.begin.push_back(s.tokens.size());
  }
  ExactForward pass(s);
  BOOST_TEST(!pass.keep_one_token_per_sequence());  // the inputs differ within sequences 1 and 3
  BOOST_TEST(pass.state().tokens.size() == 6u);
  BOOST_TEST(!pass.one_token_per_sequence());
  pass.apply_attention(model.blocks[0].sa);
  BOOST_TEST(pass.keep_one_token_per_sequence());
  BOOST_TEST(pass.state().tokens.size() == 3u);
  BOOST_TEST(pass.state().begin == (std::vector<std::size_t>{0, 1, 2, 3}));
  pass.apply_feed_forward(model.blocks[0].ff);
  pass.apply_block(model.blocks[1]);  // identity attention: allowed
  for (std::size_t j = 0; j < inputs.size(); ++j) {
    const auto want = forward_dense(model, inputs[j]);
    for (std::size_t i = 0; i < want.size(); ++i)
      BOOST_TEST_CONTEXT("sequence " << j + 1 << ", token " << i + 1) CHECK_POINT(pass.state().tokens[j], want[i]);
  }
  BOOST_CHECK_THROW(pass.apply_attention(mean_shift), std::logic_error);
  BOOST_CHECK_THROW(pass.apply_attention_with_proven_argmax(mean_shift, {0, 1, 2}), std::logic_error);
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
      const auto built = build_interpolating_transformer(data, seed + k, 1, {false});
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
      const auto built = build_interpolating_transformer(data, seed + 100 + k, 1, {false});
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

BOOST_AUTO_TEST_SUITE_END()
