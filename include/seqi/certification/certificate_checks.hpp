// Checks shared by the hardmax and softmax certificates.
#pragma once
#include <string>
#include <vector>

#include "seqi/certification/certificate.hpp"
#include "seqi/core/progress.hpp"

namespace seqi {

std::string count_detail(std::size_t value, const char* op, std::size_t bound);

// Width and ranks (def:model), blocks against the theorem of cert.setting, parameter bound (lem:counts).
void add_shape_checks(Certificate& cert, bool required);

// Per-sequence outcomes and the check T(X_j) = Y_j (lem:interpolation); outputs[j] are the
// final tokens of sequence j.
void add_interpolation_check(Certificate& cert, const Dataset& data, const std::vector<std::vector<Point>>& outputs);

// Lemma P on the tokens just before the collapse block of our construction (lem:P).
// progress (nullable) counts the sequences checked.
void add_lemma_p_check(Certificate& cert, const TokenState& before_collapse, const Construction& built, bool brute,
                       Progress* progress = nullptr);

// Snapshot of the first few sequences (for the certificate's figures).
PhaseSnapshot snapshot_of(const TokenState& s, const std::string& phase);

// Max bits and a snapshot of the tokens at the end of a phase.
void record_phase_end(Certificate& cert, const TokenState& s, const std::string& phase);

// Applies blocks [from, to) exactly, recording each phase end; progress (nullable) counts blocks.
void run_exact_blocks(Certificate& cert, ExactForward& pass, const Transformer<Rational>& model, std::size_t from,
                      std::size_t to, Progress* progress = nullptr);

std::vector<std::vector<Point>> outputs_of(const TokenState& s);

}  // namespace seqi
