// Deterministic generic choices: seeded draws, checked exactly by the caller, redrawn
// from a widening range on failure, and logged so the output can state what was used.
#pragma once
#include <cstdint>
#include <functional>
#include <stdexcept>
#include <string>
#include <vector>

#include "seqi/core/rng.hpp"

namespace seqi {

struct ChoiceLog {
  std::string what;      // e.g. "shift (f, v)"
  int attempts = 0;      // draws until every exact check passed
  Integer final_range;   // coordinates were drawn from [-range, range]
};

// No valid generic choice was found within the attempt limit (exit code 1).
struct ConstructionError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// Calls try_draw(range) with range = initial, 2*initial, 4*initial, ... until it returns
// true; logs the outcome. Throws ConstructionError after max_attempts failures.
void choose_generic(const std::string& what, const Integer& initial_range,
                    const std::function<bool(const Integer& range)>& try_draw,
                    std::vector<ChoiceLog>& log, int max_attempts = 64);

}  // namespace seqi
