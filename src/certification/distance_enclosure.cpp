#include "seqi/certification/distance_enclosure.hpp"

#include <algorithm>

namespace seqi {
namespace {

struct Bounds {
  Rational lo, hi;
};

// |o - y|^2: exact for an exact o, otherwise sum_r sqr(o_r - y_r) with o_r enclosed.
Bounds squared_distance(const AffineEnclosure& o, const IntervalBox* box, const Point& y) {
  if (o.is_exact()) {
    const Rational r = norm_sq(Point(o.p - y));
    return {r, r};
  }
  std::vector<Interval> terms;
  for (std::size_t r = 0; r < box->size(); ++r) terms.push_back(sqr((*box)[r] - y[static_cast<Eigen::Index>(r)]));
  const Interval s = sum(terms);
  return {std::max(Rational(0), s.lower()), s.upper()};
}

}  // namespace

const char* verdict_name(SequenceVerdict v) {
  switch (v) {
    case SequenceVerdict::exact: return "exact";
    case SequenceVerdict::within_delta: return "within delta";
    case SequenceVerdict::not_interpolating: return "not interpolating";
    case SequenceVerdict::undecided: return "undecided within budget";
  }
  return "?";
}

DistanceEnclosure distance_to_targets(const std::vector<AffineEnclosure>& outputs, const Sequence& targets,
                                      unsigned precision_bits) {
  const std::size_t n = outputs.size(), m = targets.size();
  std::vector<IntervalBox> boxes(n);
  for (std::size_t i = 0; i < n; ++i)
    if (!outputs[i].is_exact()) boxes[i] = box_of(outputs[i], precision_bits);
  std::vector<Bounds> to_target(n), to_output(m);  // min over the other set
  for (std::size_t i = 0; i < n; ++i)
    for (std::size_t k = 0; k < m; ++k) {
      const Bounds b = squared_distance(outputs[i], &boxes[i], targets[k]);
      if (k == 0 || b.lo < to_target[i].lo) to_target[i].lo = b.lo;
      if (k == 0 || b.hi < to_target[i].hi) to_target[i].hi = b.hi;
      if (i == 0 || b.lo < to_output[k].lo) to_output[k].lo = b.lo;
      if (i == 0 || b.hi < to_output[k].hi) to_output[k].hi = b.hi;
    }
  DistanceEnclosure e;
  std::size_t worst_out = 0, worst_target = 0;
  Rational widest = -1;
  for (std::size_t i = 0; i < n; ++i) {
    e.loss_lo = std::max(e.loss_lo, to_target[i].lo);
    e.loss_hi = std::max(e.loss_hi, to_target[i].hi);
    if (to_target[i].lo > to_target[worst_out].lo) worst_out = i;
    if (to_target[i].hi - to_target[i].lo > widest) widest = to_target[i].hi - to_target[i].lo, e.widest_token = i;
  }
  e.hausdorff_sq_lo = e.loss_lo;
  e.hausdorff_sq_hi = e.loss_hi;
  for (std::size_t k = 0; k < m; ++k) {
    e.hausdorff_sq_lo = std::max(e.hausdorff_sq_lo, to_output[k].lo);
    e.hausdorff_sq_hi = std::max(e.hausdorff_sq_hi, to_output[k].hi);
    if (to_output[k].lo > to_output[worst_target].lo) worst_target = k;
  }
  if (n && (m == 0 || to_target[worst_out].lo >= to_output[worst_target].lo))
    e.witness = "output token " + std::to_string(worst_out + 1) + " is at squared distance >= " +
                approx_decimal(to_target[worst_out].lo, 8) + " from every target";
  else if (m)
    e.witness = "target " + to_string(targets[worst_target]) + " is at squared distance >= " +
                approx_decimal(to_output[worst_target].lo, 8) + " from every output token";
  return e;
}

SequenceVerdict verdict_of(const DistanceEnclosure& e, const Rational& delta) {
  if (e.hausdorff_sq_hi <= 0) return SequenceVerdict::exact;
  const Rational d2 = delta * delta;
  if (e.hausdorff_sq_hi <= d2) return SequenceVerdict::within_delta;
  if (e.hausdorff_sq_lo > d2) return SequenceVerdict::not_interpolating;
  return SequenceVerdict::undecided;
}

}  // namespace seqi
