#include "seqi/construction/generic_choice.hpp"

namespace seqi {

void choose_generic(const std::string& what, const Integer& initial_range,
                    const std::function<bool(const Integer& range)>& try_draw,
                    std::vector<ChoiceLog>& log, int max_attempts) {
  Integer range = initial_range < 1 ? Integer(1) : initial_range;
  for (int attempt = 1; attempt <= max_attempts; ++attempt, range *= 2) {
    if (try_draw(range)) {
      log.push_back({what, attempt, range});
      return;
    }
  }
  throw ConstructionError("no valid generic choice for " + what + " after " +
                          std::to_string(max_attempts) + " draws (last range " + range.str() + ")");
}

}  // namespace seqi
