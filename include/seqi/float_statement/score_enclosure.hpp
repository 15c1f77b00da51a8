// A filter for the float64-run bound's hardmax argmax (lem:float-scores): the exact scores
// s_l = a . x_l of one query enclosed in doubles, so that the exact argmax and its gaps are shown
// without rational dot products when the enclosures alone decide them (CGAL-style: the caller
// compares exact scores only when this returns nullopt).
#pragma once
#include <cstddef>
#include <functional>
#include <optional>
#include <vector>

#include "seqi/numbers/scalar.hpp"
#include "seqi/numbers/upward.hpp"

namespace seqi {

// [lo, hi] contains the exact score; lo, hi may be non-finite (then nothing is decided).
struct ScoreEnclosure {
  double lo = 0, hi = 0;
};

// mid_rad of every coordinate of x, appended to out. Requires UpwardRounding.
void append_mid_rad(const Point& x, std::vector<MidRad>& out);

// Encloses a . x for exact vectors of size d given as mid_rad of their coordinates.
// Requires UpwardRounding.
ScoreEnclosure enclose_score(const MidRad* a, const MidRad* x, std::size_t d);

// The index top of the unique largest exact score when, for every l != top, the enclosures show
// s_top - s_l > need(top, l) (need: a double, compared as the exact rational it denotes); nullopt
// when they do not show it (the exact scores may still). scores: enclose_score of each key.
// Requires UpwardRounding.
std::optional<std::size_t> argmax_shown_by_enclosures(const std::vector<ScoreEnclosure>& scores,
                                                      const std::function<double(std::size_t, std::size_t)>& need);

}  // namespace seqi
