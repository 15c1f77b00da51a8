// lem:float-reading (proofs/float-reading.tex): the float run's error along the reading
// direction r of a one-direction feed-forward layer (rows U_k = slope_k r^T). Besides the
// infinity-norm error e_i, the float-run bound keeps rho_i >= |r.(xhat_i - x*_i)| for the last
// such direction: a pre-activation then errs by R_k + |slope_k| rho_i instead of
// R_k + |U_k|_1 e_i, and a hat's displacement D enters later readings through |r.D|, not
// |r|_1 |D|_inf.
#pragma once
#include <optional>
#include <vector>

#include "seqi/forward/one_direction_ff.hpp"
#include "seqi/model/feed_forward.hpp"
#include "seqi/model/structured_matrix.hpp"

namespace seqi {

// Upper bounds (doubles, computed under UpwardRounding) on the magnitudes the reading bound of
// one layer needs.
struct ReadingLayer {
  Point r;                      // the layer's direction (exact; OneDirectionForm::r)
  std::vector<double> r_mag;    // >= |r_c|
  double r_one = 0;             // >= |r|_1
  std::vector<double> slope;    // >= |slope_k|
  std::vector<int> slope_sign;  // sign of slope_k
  std::vector<double> r_abs_w;  // >= sum_c |r_c| |W_ck|
  std::vector<double> r_dot_w;  // >= |r . W_k|
  // >= |lambda| when r = lambda * previous (the direction the reading errors refer to);
  // nullopt when there is none or r is not a multiple of it.
  std::optional<double> scale;
};

// Requires UpwardRounding.
ReadingLayer reading_layer(const FeedForward<Rational>& ff, const OneDirectionForm& form,
                           const std::optional<Point>& previous);

// For an attention layer followed by a one-direction layer of direction r: upper bounds on
// sum_c |r_c| |p_tc| and |r.p_t| for the terms p_t q_t^T of V, and on |r|_1. Requires UpwardRounding.
struct VReading {
  std::vector<double> r_abs_p, r_dot_p;
  double r_one = 0;
};
VReading v_reading(const StructuredMatrix<Rational>& V, const Point& r);

// lambda with r = lambda * previous (exact), or nullopt. previous must be nonzero.
std::optional<Rational> multiple_of(const Point& r, const Point& previous);

}  // namespace seqi
