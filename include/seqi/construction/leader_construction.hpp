// Phases S, P, C and I (the leader construction) in two steps. The first builds Phase S (once for
// every shift size, build_phase_s) and plans Phase P (the shrink, the places, the reading and the
// leaders: most of the work at scale); the second builds the placement hats and phases C and I.
// So the plan can be made before the norm it must undercut is known (lem:mean-collapse's
// comparison), on another process's time.
#pragma once
#include <cstddef>
#include <memory>
#include <optional>
#include <vector>

#include "seqi/construction/construction.hpp"
#include "seqi/construction/shifted_tokens.hpp"

namespace seqi {

// Phase S as the leader constructions at every shift size share it (rem:shift-sizes).
struct PhaseS {
  std::shared_ptr<const LiftedInputs> config;    // the tokens after the lifts
  Rng rng;                                       // after Phase S's draws
  Construction out;                              // Phase S's lift blocks (their plateaus set) and choices
  Rational norm;                                 // out.model's ||theta||^2 before any lift carries its plateau
  std::size_t plateaus = 0;                      // placement hats after the shrink that carry one (lem:plateau-hat)
  std::optional<std::size_t> shift_choice;       // index of the shift's draw in out.record.choices, if any
  std::vector<std::optional<Separation>> sizes;  // build_separation's, one per halving; the first is set
};

// Phase S appended to a copy of `empty` (seeded by empty.record.seed), on `threads` threads of this
// process. Throws ConstructionError when the first halving's shift leaves two tokens equal.
PhaseS build_phase_s(const Dataset& data, const Construction& empty, unsigned threads,
                     const std::vector<int>& halvings = {0});

class LeaderConstruction {
 public:
  // Phase P planned for the shift `sep` (one of phase.sizes) into `out`, a copy of phase.out; on
  // `threads` threads of this process only. data, phase and out must outlive the object.
  LeaderConstruction(const Dataset& data, const PhaseS& phase, const Separation& sep, Construction& out,
                     unsigned threads);
  LeaderConstruction(const LeaderConstruction&) = delete;
  LeaderConstruction& operator=(const LeaderConstruction&) = delete;
  ~LeaderConstruction();

  // The placement hats and phases C and I, appended to `out` (every unit built balanced,
  // lem:relu-rescaling). With `lighter_than`, stops once the blocks built so far (Phase S as
  // first built, then Phase P's hats chunk by chunk) store a norm at least that large
  // (||theta||^2 only grows with blocks, so it could no longer be the lighter) and returns that
  // norm; nullopt when every phase was built. Collective with exec.sharding. Call once.
  std::optional<Rational> finish(const Execution& exec, const std::optional<Rational>& lighter_than = std::nullopt);

 private:
  const Dataset& data_;
  const PhaseS& phase_;
  const Separation& sep_;
  Construction& out_;
  Rng rng_;
  std::unique_ptr<ShiftedTokens> tokens_;  // reads data_ and phase_.config
  PlacementPlan plan_;
};

}  // namespace seqi
