// The limits every JSON reader of seqi applies (datasets, model JSON, safetensors headers,
// the metadata's exact model, the regression corpus): nesting at most kMaxJsonDepth arrays
// and objects, and no key twice within one object.
#pragma once
#include <cstddef>
#include <set>
#include <string>
#include <vector>

namespace seqi {

// Deepest nesting of arrays and objects any reader accepts (a model file needs 8, a dataset 5).
inline constexpr std::size_t kMaxJsonDepth = 32;

// The message for nesting beyond kMaxJsonDepth, shared by every reader.
std::string json_too_deep_message();

// Follows a SAX parse: the open containers and, for each open object, the keys it has held.
// Memory: one key set per open object, at most kMaxJsonDepth of them.
class JsonNesting {
 public:
  // A container starts; false when it would be deeper than kMaxJsonDepth (nothing is opened).
  bool open();
  // The innermost container ends.
  void close();
  // A key of the innermost object; false when that object has held it already.
  bool first_time(const std::string& key);
  std::size_t depth() const { return open_.size(); }

 private:
  std::vector<std::set<std::string>> open_;  // arrays hold an empty set
};

}  // namespace seqi
