#include "seqi/io/random_dataset.hpp"

#include <algorithm>
#include <set>

#include "seqi/core/rng.hpp"
#include "seqi/numbers/point_set.hpp"

namespace seqi {
namespace {

std::size_t uniform(Rng& rng, std::size_t lo, std::size_t hi) { return lo + rng.next() % (hi - lo + 1); }

Point random_point(Rng& rng, const RandomDatasetSpec& s) {
  Point p(s.d);
  for (int k = 0; k < s.d; ++k) {
    const long num = static_cast<long>(rng.next() % static_cast<std::uint64_t>(2 * s.coordinate_range + 1)) -
                     s.coordinate_range;
    p[k] = Rational(num, static_cast<long>(uniform(rng, 1, static_cast<std::size_t>(s.max_denominator))));
  }
  return p;
}

// n distinct points, each from the shared pool with the given probability.
Sequence distinct_points(Rng& rng, const RandomDatasetSpec& s, std::size_t n, const std::vector<Point>& pool) {
  Sequence seq;
  std::set<Point, decltype(&lex_less)> seen(&lex_less);
  while (seq.size() < n) {
    const bool shared = !pool.empty() && static_cast<double>(rng.next() % 1000) < 1000 * s.share_probability;
    Point p = shared ? pool[rng.next() % pool.size()] : random_point(rng, s);
    if (!seen.insert(p).second) continue;
    seq.push_back(std::move(p));
  }
  return seq;
}

}  // namespace

Dataset random_dataset(const RandomDatasetSpec& s, std::uint64_t seed) {
  Rng rng(seed);
  Dataset data;
  data.name = "random N=" + std::to_string(s.N) + " d=" + std::to_string(s.d) + " seed=" + std::to_string(seed);
  data.dimension = s.d;
  std::vector<Point> pool;
  for (std::size_t k = 0; k < std::max<std::size_t>(4, s.n_max); ++k) pool.push_back(random_point(rng, s));
  auto set_less = [](const std::vector<Point>& a, const std::vector<Point>& b) {
    return std::lexicographical_compare(a.begin(), a.end(), b.begin(), b.end(), lex_less);
  };
  std::set<std::vector<Point>, decltype(set_less)> input_sets(set_less);
  while (data.pairs.size() < s.N) {
    const std::size_t n = uniform(rng, s.n_min, s.n_max);
    const std::size_t m = uniform(rng, 1, s.m_max ? std::min(n, s.m_max) : n);
    const Sequence input = distinct_points(rng, s, n, pool);
    SequencePair pair{TokenSequence(input), TokenSequence(distinct_points(rng, s, m, {}))};
    if (!input_sets.insert(as_sorted_set(input)).second) continue;  // H3: input sets pairwise different
    data.pairs.push_back(std::move(pair));
  }
  return data;
}

}  // namespace seqi
