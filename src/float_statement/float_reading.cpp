#include "seqi/float_statement/float_reading.hpp"

#include <algorithm>

#include "seqi/numbers/upward.hpp"

namespace seqi {

std::optional<Rational> multiple_of(const Point& r, const Point& previous) {
  if (r.size() != previous.size()) return std::nullopt;
  Eigen::Index pivot = 0;
  while (pivot < previous.size() && previous[pivot] == 0) ++pivot;
  if (pivot == previous.size()) return std::nullopt;
  const Rational lambda = r[pivot] / previous[pivot];
  for (Eigen::Index c = 0; c < r.size(); ++c)
    if (r[c] != lambda * previous[c]) return std::nullopt;
  return lambda;
}

VReading v_reading(const StructuredMatrix<Rational>& V, const Point& r) {
  expect_upward_rounding("v_reading");
  VReading v;
  for (Eigen::Index c = 0; c < r.size(); ++c) v.r_one = v.r_one + magnitude_up(r[c]);
  for (const auto& t : V.terms) {
    Rational dot_p = 0;
    double abs_p = 0;
    for (Eigen::Index c = 0; c < r.size(); ++c) {
      dot_p += r[c] * t.p[c];
      abs_p = abs_p + magnitude_up(r[c]) * magnitude_up(t.p[c]);
    }
    v.r_abs_p.push_back(abs_p);
    v.r_dot_p.push_back(magnitude_up(dot_p));
  }
  return v;
}

ReadingLayer reading_layer(const FeedForward<Rational>& ff, const OneDirectionForm& form,
                           const std::optional<Point>& previous) {
  expect_upward_rounding("reading_layer");
  ReadingLayer l;
  l.r = form.r;
  for (Eigen::Index c = 0; c < form.r.size(); ++c) {
    l.r_mag.push_back(magnitude_up(form.r[c]));
    l.r_one = l.r_one + l.r_mag.back();
  }
  for (std::size_t k = 0; k < form.slope.size(); ++k) {
    const auto kk = static_cast<Eigen::Index>(k);
    l.slope.push_back(magnitude_up(form.slope[k]));
    l.slope_sign.push_back(form.slope[k] > 0 ? 1 : form.slope[k] < 0 ? -1 : 0);
    Rational dot_w = 0;
    double abs_w = 0;
    for (Eigen::Index c = 0; c < form.r.size(); ++c) {
      dot_w += form.r[c] * ff.W(c, kk);
      abs_w = abs_w + l.r_mag[static_cast<std::size_t>(c)] * magnitude_up(ff.W(c, kk));
    }
    l.r_abs_w.push_back(abs_w);
    l.r_dot_w.push_back(magnitude_up(dot_w));
  }
  if (previous)
    if (auto lambda = multiple_of(form.r, *previous)) l.scale = magnitude_up(*lambda);
  return l;
}

}  // namespace seqi
