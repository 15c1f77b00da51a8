// Checks shared by the hardmax and softmax certificates.
#pragma once
#include <functional>
#include <string>
#include <vector>

#include "seqi/certification/run_report.hpp"
#include "seqi/core/execution.hpp"
#include "seqi/float_statement/float_run.hpp"

namespace seqi {

std::string count_detail(std::size_t value, const char* op, std::size_t bound);

// Width and ranks (def:model), blocks against the theorem of cert.setting, parameter bound (lem:counts).
void add_shape_checks(Certificate& cert, bool required);

// Per-sequence outcomes and the check T(X_j) = Y_j (lem:interpolation); outputs[j] are the
// final tokens of sequence j.
// Sequences compared on exec.threads threads.
void add_interpolation_check(Certificate& cert, const Dataset& data, const std::vector<std::vector<Point>>& outputs,
                             const Execution& exec = {});

// Lemma P on the tokens just before the collapse block of our construction (lem:P).
// exec: sequences counted on its progress, checked on its threads.
void add_lemma_p_check(Certificate& cert, const TokenState& before_collapse, const Construction& built, bool brute,
                       const Execution& exec = {});

// Snapshot of the first kSnapshotSequences sequences (for the certificate's figures).
inline constexpr std::size_t kSnapshotSequences = 4;
PhaseSnapshot snapshot_of(const TokenState& s, const std::string& phase);

// Max bits and a snapshot of the tokens at the end of a phase.
void record_phase_end(Certificate& cert, const TokenState& s, const std::string& phase, unsigned threads = 1);

// Block b of the exact pass, with the float64 bound following it: the pass applies its own
// layers (attention with the proven argmax `attends` of Lemma P when given), never the bound's
// argmax or form; after_attention (optional) runs between the two layers.
void follow_exactly(FloatRunBound& bound, std::size_t b, ExactForward& pass, const Block<Rational>& block,
                    const std::vector<std::size_t>* attends = nullptr,
                    const std::function<void()>& after_attention = {});

// Applies blocks [from, to) exactly, recording each phase end in the certificate and each
// layer's relative window in the measurements; counts blocks on exec.progress.
// bound (optional): the float64 bound following this pass (lem:float-run), taken through the
// same blocks; the pass never uses its results. after_attention (optional): called with b
// between block b's two layers.
void run_exact_blocks(RunReport& report, ExactForward& pass, const Transformer<Rational>& model, std::size_t from,
                      std::size_t to, const Execution& exec = {}, FloatRunBound* bound = nullptr,
                      const std::function<void(std::size_t)>& after_attention = {});

std::vector<std::vector<Point>> outputs_of(const TokenState& s);
// The same, moving the tokens out of s (no second copy of the token state).
std::vector<std::vector<Point>> outputs_of(TokenState&& s);

}  // namespace seqi
