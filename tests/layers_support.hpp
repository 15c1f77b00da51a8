// Helpers shared by the layer suites (test_layers, test_exact_forward): short rational and point
// literals and CHECK_POINT, an exact point comparison that prints both points on failure.
#pragma once
#include <boost/test/unit_test.hpp>

#include <initializer_list>
#include <string>

#include "seqi/numbers/rational.hpp"

namespace seqi_test::layers {

using namespace seqi;

inline Rational q(long a, long b = 1) { return Rational(a) / Rational(b); }

inline Point pt(std::initializer_list<Rational> xs) {
  Point p(static_cast<Eigen::Index>(xs.size()));
  Eigen::Index i = 0;
  for (const auto& x : xs) p[i++] = x;
  return p;
}

inline bool same(const Point& a, const Point& b) { return a.size() == b.size() && equal_points(a, b); }

#define CHECK_POINT(got, want)                                                                \
  do {                                                                                        \
    const seqi::Point g_ = (got), w_ = (want);                                                \
    BOOST_TEST(::seqi_test::layers::same(g_, w_),                                             \
               #got << " = " << seqi::to_string(g_) << ", expected " << seqi::to_string(w_)); \
  } while (0)

}  // namespace seqi_test::layers
