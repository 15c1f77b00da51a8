#include "seqi/io/json_limits.hpp"

namespace seqi {

std::string json_too_deep_message() {
  return "arrays and objects nested deeper than " + std::to_string(kMaxJsonDepth) +
         " levels (the limit of every JSON file seqi reads)";
}

bool JsonNesting::open() {
  if (open_.size() >= kMaxJsonDepth) return false;
  open_.emplace_back();
  return true;
}

void JsonNesting::close() {
  if (!open_.empty()) open_.pop_back();
}

bool JsonNesting::first_time(const std::string& key) {
  return open_.empty() || open_.back().insert(key).second;
}

}  // namespace seqi
