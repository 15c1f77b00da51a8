#include <boost/test/unit_test.hpp>

#include <algorithm>
#include <cmath>
#include <random>
#include <string>

#include "seeded_oracles.hpp"
#include "seqi/float_statement/score_enclosure.hpp"

BOOST_AUTO_TEST_SUITE(test_score_enclosure)

using namespace seqi;
using seqi::testing::base_seed;

// The float64 bound's argmax filter against an oracle written from the definition: exact
// rational scores s_l = a . x_l, their unique maximum and the gaps s_top - s_l compared with the
// exact value of each need(top, l). Filtered and exact paths run side by side (CGAL-style) on
// random and near-degenerate input; the base seed is printed and SEQI_SEED replays it.
namespace {

// A random rational of up to `bits` bits over a random denominator of up to `bits` bits.
Rational random_rational(std::mt19937_64& gen, unsigned bits) {
  auto integer = [&](unsigned b) {
    Integer v = 0;
    for (unsigned k = 0; k < b; k += 32) v = (v << 32) + (gen() & 0xffffffffu);
    return v;
  };
  Integer den = integer(1 + static_cast<unsigned>(gen() % bits)) + 1;
  Integer num = integer(1 + static_cast<unsigned>(gen() % bits));
  if (gen() % 2) num = -num;
  return Rational(num, den);
}

Point random_point(std::mt19937_64& gen, int d, unsigned bits) {
  Point p(d);
  for (int c = 0; c < d; ++c) p[c] = random_rational(gen, bits);
  return p;
}

std::vector<MidRad> mid_rads(const Point& x) {
  std::vector<MidRad> out;
  append_mid_rad(x, out);
  return out;
}

}  // namespace

// Arb-style: the exact score lies inside its computed enclosure, on coordinates of 1 to 400 bits
// (denominators included) and on exactly representable ones.
BOOST_AUTO_TEST_CASE(every_exact_score_lies_in_its_enclosure) {
  std::mt19937_64 gen(base_seed("test_score_enclosure"));
  UpwardRounding up;
  for (int trial = 0; trial < 3000; ++trial) {
    const int d = 1 + static_cast<int>(gen() % 60);
    const unsigned bits = 1 + static_cast<unsigned>(gen() % 400);
    const Point a = random_point(gen, d, bits), x = random_point(gen, d, bits);
    const std::vector<MidRad> am = mid_rads(a), xm = mid_rads(x);
    const ScoreEnclosure e = enclose_score(am.data(), xm.data(), static_cast<std::size_t>(d));
    const Rational s = dot(a, x);
    BOOST_TEST_REQUIRE(std::isfinite(e.lo), "trial " << trial);
    BOOST_TEST_REQUIRE(std::isfinite(e.hi), "trial " << trial);
    BOOST_TEST((Rational(e.lo) <= s && s <= Rational(e.hi)), "trial " << trial << ": d " << d << ", bits " << bits);
  }
}

// When the filter names a top, the exact scores have that unique maximum and every exact gap
// exceeds need(top, l); clear cases are decided by the filter (it is not vacuous); ties and gaps
// at the need are left to the exact path.
BOOST_AUTO_TEST_CASE(a_decided_argmax_is_the_exact_one_with_every_gap_shown) {
  std::mt19937_64 gen(base_seed("test_score_enclosure") + 1);
  UpwardRounding up;
  std::size_t decided = 0, clear = 0, decided_clear = 0;
  for (int trial = 0; trial < 2000; ++trial) {
    const int d = 2 + static_cast<int>(gen() % 50);
    const unsigned bits = 1 + static_cast<unsigned>(gen() % 200);
    const std::size_t n = 2 + gen() % 15;
    const Point a = random_point(gen, d, bits);
    std::vector<Point> keys;
    for (std::size_t l = 0; l < n; ++l) keys.push_back(random_point(gen, d, bits));
    const int kind = static_cast<int>(gen() % 4);
    if (kind == 1) keys[gen() % n] = keys[0];  // an exact tie with key 0 (possibly at the top)
    if (kind == 2) {                            // key 1 a whisker away from key 0
      keys[1] = keys[0];
      keys[1][0] += Rational(1, Integer(1) << (40 + gen() % 80));
    }
    std::vector<Rational> s;
    for (const auto& x : keys) s.push_back(dot(a, x));
    const auto best = static_cast<std::size_t>(std::max_element(s.begin(), s.end()) - s.begin());
    // need: a fraction of the exact gap to the runner-up (so that clear cases exist), or a need
    // just above it (kind 3: never shown).
    Rational second;
    bool any = false;
    for (std::size_t l = 0; l < n; ++l)
      if (l != best && (!any || s[l] > second)) second = s[l], any = true;
    const Rational gap = s[best] - second;
    const double g = gap.convert_to<double>();
    const double need = kind == 3 ? std::nextafter(g, HUGE_VAL) * 1.5 : g * 1e-3;
    auto need_of = [&](std::size_t, std::size_t) { return need; };

    std::vector<ScoreEnclosure> e;
    std::vector<std::vector<MidRad>> xm;
    const std::vector<MidRad> am = mid_rads(a);
    for (const auto& x : keys) {
      xm.push_back(mid_rads(x));
      e.push_back(enclose_score(am.data(), xm.back().data(), static_cast<std::size_t>(d)));
    }
    const auto top = argmax_shown_by_enclosures(e, need_of);
    // The exact decision, from the definition.
    bool exact_shows = true;
    for (std::size_t l = 0; l < n; ++l)
      if (l != best && !(s[best] - s[l] > Rational(need))) exact_shows = false;
    if (top) {
      ++decided;
      BOOST_TEST(*top == best, "trial " << trial);
      BOOST_TEST(exact_shows, "trial " << trial << ": the filter decided what the exact scores do not show");
    }
    // Clear: a gap above 1e-9 of the scores' term sizes, far above the enclosures' widths (about
    // d 2^-50 of them).
    double size = 0;
    for (const auto& x : keys)
      for (int c = 0; c < d; ++c) size = std::max(size, std::fabs((a[c] * x[c]).convert_to<double>()));
    const bool is_clear = kind == 0 && g > 1e-9 * d * size;
    clear += is_clear;
    decided_clear += is_clear && top;
    if (kind == 1 && s[best] == second) BOOST_TEST(!top, "trial " << trial << ": an exact tie was decided");
    if (kind == 3) BOOST_TEST(!top, "trial " << trial << ": a gap below the need was decided");
  }
  BOOST_TEST_MESSAGE("decided " << decided << " of 2000, clear cases decided " << decided_clear << " of " << clear);
  BOOST_TEST(clear > 50u);
  BOOST_TEST(decided_clear == clear);
}

// Non-finite enclosures (coordinates beyond the double range) decide nothing.
BOOST_AUTO_TEST_CASE(non_finite_enclosures_decide_nothing) {
  UpwardRounding up;
  Point a(2), x(2), y(2);
  a << Rational(Integer(1) << 2000), Rational(1);
  x << Rational(1), Rational(0);
  y << Rational(0), Rational(1);
  const std::vector<MidRad> am = mid_rads(a), xm = mid_rads(x), ym = mid_rads(y);
  const std::vector<ScoreEnclosure> e{enclose_score(am.data(), xm.data(), 2), enclose_score(am.data(), ym.data(), 2)};
  BOOST_TEST(!argmax_shown_by_enclosures(e, [](std::size_t, std::size_t) { return 0.0; }));
}

BOOST_AUTO_TEST_SUITE_END()
