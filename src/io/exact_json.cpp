#include "seqi/io/exact_json.hpp"

#include <vector>

#include "seqi/core/dataset.hpp"
#include "seqi/core/input_error.hpp"
#include "seqi/io/json_limits.hpp"
#include "seqi/io/quote_value.hpp"

namespace seqi {
namespace {

using json = nlohmann::json;

// SAX handler building a DOM under the limits of json_limits.hpp (nesting, no key twice in
// one object). exact_numbers: each number becomes a string of its exact text; otherwise
// numbers stay JSON numbers.
class LimitedDomBuilder : public nlohmann::json_sax<json> {
 public:
  explicit LimitedDomBuilder(bool exact_numbers) : exact_numbers_(exact_numbers) {}

  json result;
  std::string error;

  bool null() override { return put(nullptr); }
  bool boolean(bool v) override { return put(v); }
  bool number_integer(number_integer_t v) override { return exact_numbers_ ? put(std::to_string(v)) : put(v); }
  bool number_unsigned(number_unsigned_t v) override { return exact_numbers_ ? put(std::to_string(v)) : put(v); }
  bool number_float(number_float_t v, const string_t& s) override { return exact_numbers_ ? put(s) : put(v); }
  bool string(string_t& v) override { return put(v); }
  bool binary(binary_t&) override { return put(nullptr); }
  bool start_object(std::size_t) override { return open(json::object()); }
  bool end_object() override { return close(); }
  bool start_array(std::size_t) override { return open(json::array()); }
  bool end_array() override { return close(); }
  bool key(string_t& k) override {
    if (!nesting_.first_time(k)) {
      error = "the key " + quote_value(k) + " appears twice in one object; keep only one";
      return false;
    }
    key_ = k;
    return true;
  }
  bool parse_error(std::size_t position, const std::string&, const nlohmann::detail::exception& ex) override {
    error = "malformed JSON at byte " + std::to_string(position) + ": " + ex.what() + "; fix the JSON syntax";
    return false;
  }

 private:
  // Inserts v into the innermost open container (or as the root) and returns where it went.
  json* insert(json v) {
    if (stack_.empty()) {
      result = std::move(v);
      return &result;
    }
    json& top = *stack_.back();
    if (top.is_array()) {
      top.push_back(std::move(v));
      return &top.back();
    }
    return &(top[key_] = std::move(v));
  }
  bool put(json v) {
    insert(std::move(v));
    return true;
  }
  bool open(json empty) {
    if (!nesting_.open()) {
      error = json_too_deep_message();
      return false;
    }
    stack_.push_back(insert(std::move(empty)));
    return true;
  }
  bool close() {
    nesting_.close();
    stack_.pop_back();
    return true;
  }

  bool exact_numbers_;
  JsonNesting nesting_;
  std::vector<json*> stack_;
  std::string key_;
};

json parse_limited(std::string_view text, const std::string& source, bool exact_numbers) {
  refuse_nul_bytes(text, source);
  LimitedDomBuilder builder(exact_numbers);
  // strict = true: anything but whitespace after the value is an error.
  const bool ok = json::sax_parse(text.begin(), text.end(), &builder, json::input_format_t::json, true);
  if (!ok) throw InputError(source + ": " + builder.error);
  return std::move(builder.result);
}

}  // namespace

void refuse_nul_bytes(std::string_view text, const std::string& source) {
  if (const auto at = text.find('\0'); at != std::string_view::npos)
    throw InputError(source + ": byte " + std::to_string(at + 1) +
                     " is a NUL character, which JSON text never holds (binary data or bytes after the JSON value?)");
}

nlohmann::json parse_exact_json(std::string_view text, const std::string& source) {
  return parse_limited(text, source, true);
}

nlohmann::json parse_limited_json(std::string_view text, const std::string& source) {
  return parse_limited(text, source, false);
}

}  // namespace seqi
