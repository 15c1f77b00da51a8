#include "seqi/forward/pattern_image.hpp"

#include <stdexcept>

namespace seqi {

PatternImage::PatternImage(const FeedForward<Rational>& ff, const OneDirectionForm& form)
    : slope_(form.slope), eta_(ff.eta) {
  const std::size_t w = slope_.size();
  if (w > kMaxWidth) throw std::invalid_argument("PatternImage: the layer is wider than kMaxWidth");
  for (std::size_t k = 0; k < w; ++k) b_.push_back(ff.b[static_cast<Eigen::Index>(k)]);
  patterns_.resize(std::size_t(1) << w);
  for (std::size_t mask = 0; mask < patterns_.size(); ++mask) {
    Pattern& p = patterns_[mask];
    for (Eigen::Index c = 0; c < ff.W.rows(); ++c) {
      Rational s = 0, o = 0;
      for (std::size_t k = 0; k < w; ++k) {
        const Rational& Wck = ff.W(c, static_cast<Eigen::Index>(k));
        if ((mask >> k & 1) == 0 || Wck == 0) continue;
        s += Wck * slope_[k];
        o += Wck * b_[k];
      }
      if (s != 0) p.w.push_back({c, s});
      if (o != 0) p.c.push_back({c, o});
    }
  }
}

Point PatternImage::operator()(const Point& x, const Rational& t) const {
  std::size_t mask = 0;
  for (std::size_t k = 0; k < slope_.size(); ++k)
    if (slope_[k] * t + b_[k] > 0) mask |= std::size_t(1) << k;
  Point y = eta_ == 1 ? x : Point(x * eta_);
  const Pattern& p = patterns_[mask];
  for (const auto& e : p.w) y[e.c] += e.value * t;
  for (const auto& e : p.c) y[e.c] += e.value;
  return y;
}

}  // namespace seqi
