// Phases S, P, C and I (the leader construction) in two steps. The first builds Phase S and
// plans Phase P (the shrink, the places, the reading and the leaders: most of the work at scale);
// the second builds the placement hats and phases C and I. So the plan can be made before the
// norm it must undercut is known (lem:mean-collapse's comparison), on another process's time.
#pragma once
#include <cstddef>
#include <memory>
#include <optional>

#include "seqi/construction/construction.hpp"
#include "seqi/construction/shifted_tokens.hpp"

namespace seqi {

class LeaderConstruction {
 public:
  // Phase S appended to `out` (seeded by out.record.seed) and Phase P planned; on `threads`
  // threads of this process only. data and out must outlive the object. shift_halvings: as for
  // build_separation.
  LeaderConstruction(const Dataset& data, Construction& out, unsigned threads, int shift_halvings = 0);
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
  Construction& out_;
  Rng rng_;
  TokenState config_;  // the exact tokens after Phase S's lifts
  Separation sep_;
  Rational phase_s_norm_;  // before any lift carries its plateau
  std::unique_ptr<ShiftedTokens> tokens_;  // reads data_ and config_
  std::size_t plateaus_ = 0;  // placement hats after the shrink that carry one (lem:plateau-hat)
  PlacementPlan plan_;
};

}  // namespace seqi
