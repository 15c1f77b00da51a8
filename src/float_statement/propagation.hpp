// Internal to the float statements: the running-error analysis of a float run in one format
// (float_format.hpp; lem:float-run and its parts in proofs/float-run.tex, proofs/float-reading.tex,
// proofs/float-sparse.tex).
// Per token i: a box (mid_i, rad_i) containing the exact value x*_i and an error radius e_i with
// |xhat_ic - x*_ic| <= e_i for every coordinate c. All bounds are computed under UpwardRounding
// from nonnegative terms with + and * only, so each computed double is >= the real bound.
//
// Propagation holds the per-token state; its members are defined by part of the proof:
//   float_run.cpp                  the state and the inputs (lem:float-run), with the driver;
//   attention_bound.cpp            an attention layer (lem:float-attention, lem:float-softmax);
//   feed_forward_bound.cpp         a feed-forward layer token by token (lem:float-ff);
//   sparse_feed_forward_bound.cpp  the band and the charges of a sparse layer (lem:float-run-sparse).
#pragma once
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "float_statement/weight_bounds.hpp"
#include "seqi/float_statement/enclosure_order.hpp"
#include "seqi/float_statement/float_reading.hpp"
#include "seqi/float_statement/float_reference.hpp"
#include "seqi/float_statement/float_run_facts.hpp"
#include "seqi/float_statement/layer_charges.hpp"
#include "seqi/forward/one_direction_ff.hpp"
#include "seqi/model/setting.hpp"
#include "seqi/model/transformer.hpp"
#include "seqi/numbers/upward.hpp"

namespace seqi::float_run_detail {

// One thread's scratch for the feed-forward bound, and the decisions it counted.
struct TokenScratch {
  TokenScratch(const FeedForward<Rational>& ff, const std::optional<OneDirectionForm>& form, std::size_t w)
      : E(w), R(w), act(w), live(w), active(w), plus(w), minus(w), jacobian(ff, form) {}
  std::vector<double> E, R, act;
  std::vector<char> live, active, plus, minus;
  PatternNorms jacobian;
  std::size_t decisions = 0, kinks = 0;
};

class Propagation {
 public:
  // fmt: the format of the run bounded; slot: its index in the LayerPreps' formats.
  Propagation(ExactReference& ref, std::vector<std::size_t> begin, std::size_t d, unsigned threads, std::size_t layers,
              const FloatFormat& fmt, std::size_t slot)
      : ref_(ref), begin_(std::move(begin)), d_(d), fmt_(fmt), slot_(slot), threads_(threads), mid_(ref.size() * d),
        rad_(ref.size()), e_(ref.size()), rho_(ref.size()), stamp_(ref.size()), t_lo_(ref.size()), t_hi_(ref.size()),
        represented_(ref.size()), right_(layers), left_(layers) {}

  // Softmax: the temperature, before the first attention layer with A != 0.
  void set_tau(const Rational& tau) { tau_ = tau; }
  const std::vector<double>& errors() const { return e_; }
  // After a hardmax attention layer with A != 0 and V != 0: every token's unique exact argmax
  // (shown by exact score gaps, lem:float-scores); empty otherwise.
  const std::vector<std::size_t>& argmax() const { return argmax_; }
  FloatRunFacts& facts() { return facts_; }

  // The state (float_run.cpp).
  std::string where(std::size_t i) const;
  std::optional<std::string> start();
  void refresh(std::size_t i) { ref_.box(i, &mid_[i * d_], rad_[i]); }
  void release();
  // After an attention layer that left every token of each sequence equal in the exact run, once
  // the run keeps one token per sequence (ExactForward::keep_one_token_per_sequence), before the
  // refresh: one token per sequence with the largest e and rho of its tokens, which bounds every
  // one of them through the feed-forward layers after (they map each token alone); it counts for
  // all of them. Precondition: no sparse layer's charges pending. Afterwards attention() throws.
  void keep_one_token_per_sequence();
  // What keep_one_token_per_sequence() keeps of each sequence: its tokens' weights summed and their
  // largest e, rho and stamp.
  struct Kept {
    std::vector<std::size_t> weight, stamp;
    std::vector<double> e, rho;
  };
  Kept per_sequence() const;
  // One token per sequence with `kept`'s state, standing for `represented` tokens of the run, after
  // an attention layer bounded elsewhere (bound_collapsed_start) whose next direction was `direction`
  // and which counted `decisions`. Precondition: ref_ has one token per sequence of `kept`.
  void enter_kept(Kept kept, std::size_t represented, const std::optional<Point>& direction, std::size_t decisions);
  // Names sequence j as first + j + 1 in failures (a run on sequences [first, ...) of a dataset).
  void number_sequences_from(std::size_t first) { first_sequence_ = first; }
  // How many tokens of the run token i stands for, and the same summed over tokens.
  std::size_t weight(std::size_t i) const { return weight_.empty() ? 1 : weight_[i]; }
  std::size_t weight_of(const std::vector<std::size_t>& tokens) const;
  std::size_t total_weight() const { return represented_; }
  void refresh_all();
  double exact_inf(std::size_t i) const;
  double float_inf(std::size_t i) const { return exact_inf(i) + e_[i]; }
  double difference_one(std::size_t i, std::size_t l) const;
  double exact_one(std::size_t i) const;

  // Decisions counted and the first failure met by one chunk of work.
  struct Tally {
    std::size_t decisions = 0;
    std::optional<std::string> failure;
    // argmax_by_enclosures' cache: mid_rad of the coordinates of the tokens [keys_from, ...) of
    // one sequence, token after token (valid within one attention layer).
    std::vector<MidRad> keys;
    std::size_t keys_from = SIZE_MAX;
  };

  // An attention layer (attention_bound.cpp).
  std::optional<std::string> attention(const SelfAttention<Rational>& sa, Setting kind, double tau_inv,
                                       const std::optional<Point>& next_direction);
  std::optional<std::string> attend_sequences(const SelfAttention<Rational>& sa, const StructuredBound& A,
                                              const StructuredBound& V, Setting kind, double tau_inv,
                                              const std::optional<VReading>& vr, const std::optional<double>& scale,
                                              std::size_t first, std::size_t last, std::vector<double>& next,
                                              std::vector<double>& next_rho, Tally& tally);
  double attention_reading(const SelfAttention<Rational>& sa, const StructuredBound& V, const VReading& vr,
                           const Applied& m, double rho_in, std::size_t i, const Applied& v) const;

  // A feed-forward layer (feed_forward_bound.cpp).
  std::optional<std::string> feed_forward(const FeedForward<Rational>& ff, const LayerPrep& prep, std::size_t layer,
                                          std::vector<std::size_t>& changed);
  double reading_error(const ReadingLayer& l, const FFBound& f, const TokenScratch& t, const double* m, double r,
                       double e, double rho, double gain, const std::optional<PatternBound>& kinks,
                       std::size_t live_units) const;

  // The readings and the charges of the sparse layers (sparse_feed_forward_bound.cpp).
  std::pair<double, double> reading_enclosure(const double* m, double rad, const std::vector<double>& r_mid,
                                              const std::vector<double>& r_mag, double cM, double under) const;
  void settle(std::size_t i, std::size_t now);
  double absolute_reading(std::size_t i) const;
  void settle_all(std::size_t now);
  void refresh_changed(const std::vector<std::size_t>& changed, std::size_t layer);

 private:
  void keep(Kept kept);  // keep_one_token_per_sequence's and enter_kept's common part
  // The direction's rounded entries and the constants of reading_enclosure for the current epoch.
  struct Epoch {
    std::vector<double> r_mid, r_mag;
    double cM = 0, under = 0;
  };
  // A side's charge and the most it charges any token (at the farthest reading).
  struct SideCharge {
    AffineCharge charge;
    Charge most;
  };
  // What a sparse layer computes token by token (band) and charges the others (per side).
  struct SparsePlan {
    ReadingLayer reading;           // the layer's reading bounds, referred to its own direction
    std::vector<std::size_t> band;  // ascending
    std::optional<SideCharge> right, left;  // nullopt: that side computes x exactly (no unit active)
  };
  // lem:float-run-sparse (1) for one token: E_k(i) = shared_k + min(|U_k|_1 e_i, |slope_k| rho_i)
  // bounds its float pre-activation error (shared_k: the rounding part for the shared sizes).
  struct OwnMargin {
    std::vector<double> shared, u_one, slope, inv_slope;  // inv_slope_k >= 1 / |slope_k|
    // >= max_k E_k / |slope_k| for a token with errors e, rho. Requires UpwardRounding.
    double mu(double e, double rho) const {
      double m = 0;
      for (std::size_t k = 0; k < shared.size(); ++k)
        m = std::max(m, (shared[k] + std::min(u_one[k] * e, slope[k] * rho)) * inv_slope[k]);
      return m;
    }
  };
  // The virtual token of sparse_plan: per coordinate |x_c| <= xs_c for x* and xhat of every token;
  // xmax >= max_c xs_c, x_most >= every token's absolute_reading, r_ratio >= the largest ratio of
  // the layer's bound on |r_c| to the epoch's (ReadingLayer::r_mag over Epoch::r_mag).
  struct SharedSizes {
    std::vector<double> xs;
    double xmax = 0, x_most = 0, r_ratio = 0;
  };
  // Per unit k, for a token of absolute reading X: R_k <= R0_k + R1_k X and E_k <= E0_k + R1_k X
  // (the charges of sparse_plan).
  struct UnitCharges {
    std::vector<double> R0, R1, E0;
  };
  // What bounding one token of a feed-forward layer reads of the layer (feed_forward_bound.cpp).
  struct FFLayer {
    const FeedForward<Rational>& ff;
    const FFBound& f;
    const OneDirectionForm* form;  // the layer's form when it is the identity outside (lo, hi)
    double lo, hi;                 // form's breakpoint hull: lo rounded down, hi rounded up
    std::vector<double> r_mid, r_mag;  // the reading direction of a sparse layer
    // roundings: of a pre-activation in the run (cU, underflow tiny_units = (d + 1) 4 eta_0); of the
    // engine's midpoint evaluation of a pre-activation's or reading's range over a box (cM, under)
    double cU, cM, under, tiny_units;
    // One direction (U_k = slope_k r^T): reading errors rho (lem:float-reading).
    std::optional<ReadingLayer> reading;
    bool sparse;  // a SparsePlan: only its band is bounded token by token
  };

  // An attention layer (attention_bound.cpp).
  std::optional<Applied> attended_average(const SelfAttention<Rational>& sa, const StructuredBound& A, Setting kind,
                                          double tau_inv, std::size_t i, std::size_t b0, std::size_t b1,
                                          const std::vector<double>& one, double xmax, double xs, double emax,
                                          Tally& tally);
  // softmax_tail's bounds (lem:float-softmax-gaps).
  struct SoftmaxTail {
    std::size_t top = 0;  // global index of the exact top key
    double weight = 0, weighted_error = 0;
  };
  template <class Need>
  std::optional<SoftmaxTail> softmax_tail(const SelfAttention<Rational>& sa, std::size_t i, std::size_t b0,
                                          std::size_t b1, const Need& need, double S, double eps, double tau_inv);
  double tail_weight(const SelfAttention<Rational>& sa, std::size_t i, std::size_t b0, std::size_t b1);
  std::vector<Rational> exact_scores(const SelfAttention<Rational>& sa, std::size_t i, std::size_t b0,
                                     std::size_t b1) const;
  template <class Need>
  std::optional<std::size_t> argmax_by_enclosures(const SelfAttention<Rational>& sa, std::size_t i, std::size_t b0,
                                                  std::size_t b1, const Need& need_of, Tally& tally) const;
  std::pair<std::size_t, Rational> exact_gap(const SelfAttention<Rational>& sa, std::size_t i, std::size_t b0,
                                             std::size_t b1) const;
  template <class Need>
  std::size_t exact_argmax(const SelfAttention<Rational>& sa, std::size_t i, std::size_t b0, std::size_t b1,
                           const Need& need_of, Tally& tally);

  // A feed-forward layer token by token (feed_forward_bound.cpp).
  FFLayer ff_layer(const FeedForward<Rational>& ff, const LayerPrep& prep) const;
  std::optional<std::string> bound_token(const FFLayer& L, std::size_t i, TokenScratch& t,
                                         std::vector<char>& maybe_changed);
  std::optional<std::string> unit_signs(const FFLayer& L, std::size_t i, const double* m, double r, double e,
                                        double rho, TokenScratch& t, std::size_t& live_units);
  template <class OneToken>
  std::optional<std::string> for_each_token(const FeedForward<Rational>& ff,
                                            const std::optional<OneDirectionForm>& form, std::size_t w,
                                            const std::vector<std::size_t>& tokens, OneToken& one_token);

  // A sparse layer (sparse_feed_forward_bound.cpp).
  void cover_box(std::size_t i);
  void begin_epoch(const FeedForward<Rational>& ff, const OneDirectionForm& form, std::size_t layer,
                   const std::vector<double>& r_mid, const std::vector<double>& r_mag, double cM, double under);
  std::optional<SparsePlan> sparse_plan(const FeedForward<Rational>& ff, const FFBound& f, const OneDirectionForm& form,
                                        const ReadingLayer& rl_form, std::size_t layer,
                                        const std::vector<double>& r_mid, const std::vector<double>& r_mag, double cU,
                                        double cM, double under, double tiny_units);
  SharedSizes shared_sizes(const ReadingLayer& rl) const;
  std::optional<Rational> unit_margins(const FFBound& f, const OneDirectionForm& form, const ReadingLayer& rl,
                                       const std::vector<double>& xs, double cU, double tiny_units, UnitCharges& units,
                                       OwnMargin& own) const;
  bool side_charge(const FeedForward<Rational>& ff, const FFBound& f, const OneDirectionForm& form,
                   const ReadingLayer& rl, int side, const SharedSizes& sizes, const UnitCharges& units,
                   std::optional<SideCharge>& out) const;
  bool decided_by_own_margin(std::size_t i, const OwnMargin& own, double lo_down, double hi_up) const;
  double candidate_reach(double reach, const OwnMargin& own, double lo_down, double hi_up, std::size_t layer,
                         double x_most);
  void close_sparse_layer(const SparsePlan& plan, std::size_t layer, std::size_t w);

  ExactReference& ref_;
  std::vector<std::size_t> begin_;
  std::size_t first_sequence_ = 0;  // number_sequences_from
  std::size_t d_;
  FloatFormat fmt_;
  std::size_t slot_;
  Rational tau_;  // softmax (set_tau)
  unsigned threads_;
  std::vector<double> mid_, rad_, e_;
  std::vector<double> rho_;           // >= |direction_.(xhat_i - x*_i)| while direction_ is set
  std::optional<Point> direction_;    // the reading direction of the last one-direction layer
  // lem:float-run-sparse: token i's e_, rho_ hold its bounds before layer stamp_[i]; it owes the
  // charges of the sparse layers since then on its side (right_: key hi_L < t; left_: -lo_L < -t).
  std::vector<std::size_t> stamp_;
  std::vector<double> t_lo_, t_hi_;   // enclosure of token i's reading along direction_ (readings_current_)
  std::vector<std::size_t> weight_;   // tokens of the run each token stands for (empty: one each)
  std::size_t represented_;           // tokens of the run (the sum of the weights)
  EnclosureOrder order_;              // the tokens by t_lo_ (while readings_current_)
  bool readings_current_ = false, pending_ = false;
  std::size_t charges_from_ = 0;      // every token's stamp is at least this (its last full settlement)
  Epoch epoch_;
  LayerCharges right_, left_;
  double hi_key_ = 0, lo_key_ = 0;    // the current layer's keys: hi rounded down, -lo rounded down
  std::vector<double> mid_max_;       // >= |mid_ic| of every token i (while readings_current_)
  double rad_max_ = 0, e_max_ = 0, rho_max_ = 0;  // >= every token's rad, e (settled or owed), rho
  double t_min_ = 0, t_max_ = 0;      // enclose every token's reading along direction_
  FloatRunFacts facts_;
  std::vector<std::size_t> argmax_;  // hardmax, scores not all zero: token i's unique exact argmax (last attention)
};

}  // namespace seqi::float_run_detail
