// The leader construction at a few sizes of lem:separation's sequence shift, the lightest kept
// (rem:shift-sizes, lem:param-norm). A shift far larger than the tokens' spacing spreads each
// sequence's tokens into a group of its own, the groups overlap, and the leaders in them have
// little room (words-300: ||theta||^2 3.9e9 with the drawn v, 8.3e8 with v / 2^12); a small one
// keeps shared tokens in tight clusters, which costs other data more. Only on small datasets:
// every size holds its own plan.
#pragma once
#include <cstddef>
#include <memory>
#include <optional>
#include <vector>

#include "seqi/construction/construction.hpp"
#include "seqi/construction/leader_construction.hpp"

namespace seqi {

// Datasets with at most this many input tokens try every shift size; larger ones the drawn v only.
inline constexpr std::size_t kShiftSizeTokenLimit = 4000;
// The sizes tried: v / 2^h for these h, the drawn v first.
inline const std::vector<int>& shift_halvings() {
  static const std::vector<int> h{0, 3, 6, 9, 12};
  return h;
}

class LeaderVariants {
 public:
  // Phase S once and the plan of Phase P for every size v / 2^h, h in `halvings` (seeded by
  // empty.record.seed; `empty`: the construction so far, no block); only the first size on
  // datasets above kShiftSizeTokenLimit. A size whose shift does not keep the tokens distinct is
  // passed over; without a shift (no token in two sequences) there is one size. Throws the first
  // size's ConstructionError when it fails.
  LeaderVariants(const Dataset& data, const Construction& empty, unsigned threads,
                 const std::vector<int>& halvings = shift_halvings());
  ~LeaderVariants();
  LeaderVariants(const LeaderVariants&) = delete;
  LeaderVariants& operator=(const LeaderVariants&) = delete;

  // LeaderConstruction::finish for every size in turn, each abandoned once its Phase P stores a
  // norm at least lighter_than or the lightest built so far. nullopt when some size was built:
  // built() is the lightest built (the first on ties), with the sizes' norms logged in its
  // choices; otherwise the smallest norm a size was abandoned at. Call once.
  std::optional<Rational> finish(const Execution& exec, const std::optional<Rational>& lighter_than = std::nullopt);
  Construction& built();

 private:
  struct Variant;
  PhaseS phase_;
  std::vector<std::unique_ptr<Variant>> variants_;
  std::size_t best_ = 0;
};

}  // namespace seqi
