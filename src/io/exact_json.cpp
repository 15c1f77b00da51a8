#include "seqi/io/exact_json.hpp"

#include <vector>

#include "seqi/core/dataset.hpp"
#include "seqi/core/input_error.hpp"

namespace seqi {
namespace {

using json = nlohmann::json;

// SAX handler building a DOM in which numbers become strings of their exact text.
class ExactDomBuilder : public nlohmann::json_sax<json> {
 public:
  explicit ExactDomBuilder(std::string source) : source_(std::move(source)) {}
  json result;
  std::string error;

  bool null() override { return put(nullptr); }
  bool boolean(bool v) override { return put(v); }
  bool number_integer(number_integer_t v) override { return put(std::to_string(v)); }
  bool number_unsigned(number_unsigned_t v) override { return put(std::to_string(v)); }
  bool number_float(number_float_t, const string_t& s) override { return put(s); }
  bool string(string_t& v) override { return put(v); }
  bool binary(binary_t&) override { return put(nullptr); }
  bool start_object(std::size_t) override { return open(json::object()); }
  bool end_object() override { return close(); }
  bool start_array(std::size_t) override { return open(json::array()); }
  bool end_array() override { return close(); }
  bool key(string_t& k) override {
    key_ = k;
    return true;
  }
  bool parse_error(std::size_t position, const std::string&, const nlohmann::detail::exception& ex) override {
    error = "byte " + std::to_string(position) + ": " + ex.what();
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
    stack_.push_back(insert(std::move(empty)));
    return true;
  }
  bool close() {
    stack_.pop_back();
    return true;
  }

  std::string source_;
  std::vector<json*> stack_;
  std::string key_;
};

}  // namespace

nlohmann::json parse_exact_json(std::string_view text, const std::string& source) {
  ExactDomBuilder builder(source);
  const bool ok = json::sax_parse(text.begin(), text.end(), &builder);
  if (!ok) throw InputError(source + ": malformed JSON at " + builder.error + "; fix the JSON syntax");
  return std::move(builder.result);
}

}  // namespace seqi
