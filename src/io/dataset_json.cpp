#include "seqi/io/dataset_json.hpp"
#include "seqi/io/read_file.hpp"

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <climits>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <memory>
#include <optional>
#include <nlohmann/json.hpp>
#include <vector>

#include "seqi/core/parallel.hpp"
#include "seqi/io/exact_json.hpp"
#include "seqi/numbers/small_ratio.hpp"
#include "seqi/io/hypotheses.hpp"
#include "seqi/io/json_limits.hpp"
#include "seqi/core/input_error.hpp"
#include "seqi/io/quote_value.hpp"

namespace seqi {
namespace {

using json = nlohmann::json;

// A JSON scalar as delivered by the SAX parser. `text` is the exact source text of a
// number (or the decoded string), so no value ever passes through a double.
struct Scalar {
  enum Kind { Null, Boolean, Integer, Unsigned, Float, String } kind;
  std::string text;  // String: the string; numbers: decimal text; Boolean: "true"/"false"
};

const char* describe(Scalar::Kind kind) {
  switch (kind) {
    case Scalar::Null: return "null";
    case Scalar::Boolean: return "a boolean";
    case Scalar::Integer:
    case Scalar::Unsigned:
    case Scalar::Float: return "a number";
    case Scalar::String: return "a string";
  }
  return "a value";
}

const char* describe_container(bool object) { return object ? "an object" : "an array"; }

// A value quoted for a message: shortened and escaped (a hostile file can hold huge strings
// and control characters).
std::string quote(const std::string& s) { return quote_value(s); }

// Line and column (1-based) of the byte before `position` characters were read.
std::pair<std::size_t, std::size_t> line_column(std::string_view text, std::size_t position) {
  std::size_t end = std::min(position == 0 ? 0 : position - 1, text.size());
  std::size_t line = 1, line_start = 0;
  for (std::size_t k = 0; k < end; ++k)
    if (text[k] == '\n') ++line, line_start = k + 1;
  return {line, end - line_start + 1};
}

// Builds the Dataset while nlohmann's parser walks the text. The expected layout is fixed,
// so a flat state machine suffices: each state says where in the layout we are.
class DatasetReader final : public nlohmann::json_sax<json> {
 public:
  // store = false: a validating pass that keeps only counters (O(1) memory), so that a bad
  // token anywhere is found before anything is allocated for the dataset.
  // stop: when set (by a validating pass that failed), the reader ends the parse early.
  DatasetReader(std::string_view text, const std::string& source, bool store,
                const std::atomic<bool>* stop = nullptr)
      : text_(text), source_(source), store_(store), stop_(stop) {}

  Dataset finish() {
    if (!seen_dimension_ || !seen_pairs_)
      fail("missing key \"" + std::string(!seen_dimension_ ? "dimension" : "pairs") +
           "\" at the top level" + unknown_hint(unknown_root_keys_) + ". " +
           "A dataset looks like {\"name\": \"...\", \"dimension\": 2, \"pairs\": "
           "[{\"input\": [[0, 1], [2, 3]], \"output\": [[1, 1]]}]}.");
    if (first_token_ && first_token_->got != static_cast<std::size_t>(data_.dimension))
      detail::check_token_size(first_token_->got, data_.dimension, 0, first_token_->output, 0, source_);
    if (mismatch_) detail::check_token_size(mismatch_->got, data_.dimension, mismatch_->pair, mismatch_->output,
                                            mismatch_->token, source_);
    if (data_.name.empty()) data_.name = std::filesystem::path(source_).stem().string();
    return std::move(data_);
  }

  // --- SAX events -------------------------------------------------------------------------
  bool null() override { return scalar({Scalar::Null, "null"}); }
  bool boolean(bool v) override { return scalar({Scalar::Boolean, v ? "true" : "false"}); }
  bool number_integer(number_integer_t v) override {
    return scalar({Scalar::Integer, std::to_string(v)});
  }
  bool number_unsigned(number_unsigned_t v) override {
    return scalar({Scalar::Unsigned, std::to_string(v)});
  }
  // Floats and integers beyond 64 bits: only the text `s` is used, never the double.
  bool number_float(number_float_t, const string_t& s) override {
    return scalar({Scalar::Float, s});
  }
  bool string(string_t& s) override { return scalar({Scalar::String, std::move(s)}); }
  bool binary(binary_t&) override { return scalar({Scalar::Null, "binary"}); }  // not in JSON text
  bool start_object(std::size_t) override { return start(true); }
  bool start_array(std::size_t) override { return start(false); }
  bool end_object() override { return end(); }
  bool end_array() override { return end(); }
  bool key(string_t& k) override { return on_key(k); }

  bool parse_error(std::size_t position, const std::string& last_token,
                   const nlohmann::detail::exception& ex) override {
    auto [line, column] = line_column(text_, position);
    std::string where = "byte " + std::to_string(position) + " (line " + std::to_string(line) +
                        ", column " + std::to_string(column) + ")";
    if (ex.id == 406)  // number overflow: the text is too large for nlohmann's double check
      fail("malformed JSON at " + where + ": the number " + quote(last_token) +
           " is too large to be a JSON number here. Write it as a string (very large exponents are "
           "refused).");
    // nlohmann's message is "[json.exception.parse_error.101] parse error at line L, column C:
    // <what>"; keep <what>, the position is given above.
    std::string what = ex.what();
    if (auto k = what.find("] "); what.rfind("[json.exception", 0) == 0 && k != std::string::npos)
      what = what.substr(k + 2);
    if (auto k = what.find(": "); what.rfind("parse error", 0) == 0 && k != std::string::npos)
      what = what.substr(k + 2);
    fail("malformed JSON at " + where + ": " + what +
         ". Fix the JSON syntax there (look for a missing comma, quote or bracket, or a "
         "trailing comma).");
  }

 private:
  enum class State {
    Start,      // expecting the top-level object
    Root,       // inside the top-level object, expecting a key or its end
    RootValue,  // after a top-level key, expecting its value
    Pairs,      // inside "pairs", expecting a pair object or the end
    Pair,       // inside a pair object, expecting a key or its end
    PairValue,  // after a pair key, expecting its value
    Sequence,   // inside "input"/"output", expecting a token array or the end
    Token,      // inside a token, expecting a coordinate or the end
    SkipValue,  // after an unknown key: its value is ignored
    Skipping,   // inside an ignored object/array
    Done,       // after the top-level object
  };

  [[noreturn]] void fail(const std::string& message) const {
    throw InputError(source_ + ": " + message);
  }

  std::string pair_name() const { return "pair " + std::to_string(pairs_); }
  std::string token_name() const {
    return detail::token_place(pairs_ - 1, in_output_, tokens_);
  }
  std::string coordinate_name() const {
    return token_name() + ", coordinate " + std::to_string(coordinate_count_);
  }

  static std::string unknown_hint(const std::vector<std::string>& unknown) {
    if (unknown.empty()) return "";
    std::string s = " (found unknown key";
    s += unknown.size() > 1 ? "s " : " ";
    for (std::size_t k = 0; k < unknown.size() && k < 5; ++k) s += (k ? ", " : "") + quote(unknown[k]);
    return s + "; misspelled?)";
  }

  // The token just read goes to the current pair's input (compact) or output sequence.
  void store_token(const Point& x) {
    if (in_output_)
      pair_->output.push_back(x);
    else
      pair_->input.push_back(x);
  }

  void skip(State back) {
    skip_return_ = back;
    state_ = State::SkipValue;
  }

  bool on_key(const std::string& k) {
    if (!nesting_.first_time(k))
      fail(state_ == State::Root   ? "key " + quote(k) + " appears twice at the top level. Keep only one."
           : state_ == State::Pair ? pair_name() + ": key " + quote(k) + " appears twice. Keep only one."
                                   : "key " + quote(k) + " appears twice in one object of an ignored value. Keep only one.");
    if (state_ == State::Skipping) return true;
    if (state_ == State::Root) {
      bool* seen = k == "name" ? &seen_name_
                   : k == "dimension" ? &seen_dimension_
                   : k == "pairs" ? &seen_pairs_
                   : nullptr;
      if (!seen) {
        if (unknown_root_keys_.size() < 5) unknown_root_keys_.push_back(k);
        skip(State::Root);
        return true;
      }
      *seen = true;
      key_ = k;
      state_ = State::RootValue;
      return true;
    }
    // State::Pair (the parser only delivers keys inside objects).
    bool* seen = k == "input" ? &seen_input_ : k == "output" ? &seen_output_ : nullptr;
    if (!seen) {
      if (unknown_pair_keys_.size() < 5) unknown_pair_keys_.push_back(k);
      skip(State::Pair);
      return true;
    }
    *seen = true;
    in_output_ = k == "output";
    state_ = State::PairValue;
    return true;
  }

  bool start(bool object) {
    if (stopped()) return false;
    if (!nesting_.open()) fail(json_too_deep_message() + ". Flatten the value.");
    switch (state_) {
      case State::Start:
        if (!object)
          fail("the top level must be an object {\"dimension\": ..., \"pairs\": [...]}, got an array.");
        state_ = State::Root;
        return true;
      case State::RootValue:
        if (key_ != "pairs" || object) root_type_error(describe_container(object));
        state_ = State::Pairs;
        return true;
      case State::Pairs:
        if (!object)
          fail("pair " + std::to_string(pairs_ + 1) +
               " must be an object {\"input\": [...], \"output\": [...]}, got an array.");
        ++pairs_;
        if (store_) data_.pairs.emplace_back();
        seen_input_ = seen_output_ = false;
        unknown_pair_keys_.clear();
        state_ = State::Pair;
        return true;
      case State::PairValue:
        if (object) sequence_type_error(describe_container(object));
        tokens_ = 0;
        if (store_) pair_ = &data_.pairs.back();
        state_ = State::Sequence;
        return true;
      case State::Sequence:
        if (object)
          fail(token_name() + " must be an array of coordinates such as [0, \"1/2\"], got an object.");
        coordinates_.clear();
        coordinate_count_ = 0;
        // "dimension" known: coordinates are read straight into the stored token.
        direct_ = store_ && data_.dimension >= 2;
        if (direct_) token_ = Point(data_.dimension);
        state_ = State::Token;
        return true;
      case State::Token:
        ++coordinate_count_;
        fail(coordinate_name() + " is " + describe_container(object) +
             "; a coordinate must be a number or a string holding a rational such as \"-3/7\". "
             "A token is a flat array of \"dimension\" coordinates.");
      case State::SkipValue:
        skip_depth_ = 1;
        state_ = State::Skipping;
        return true;
      case State::Skipping:
        ++skip_depth_;
        return true;
      default:
        fail("internal reader error: unexpected start of " + std::string(describe_container(object)));
    }
  }

  bool end() {
    nesting_.close();
    switch (state_) {
      case State::Root:
        state_ = State::Done;
        return true;
      case State::Pairs:
        state_ = State::Root;
        return true;
      case State::Pair:
        if (!seen_input_ || !seen_output_)
          fail(pair_name() + ": missing key \"" + (seen_input_ ? "output" : "input") + "\"" +
               unknown_hint(unknown_pair_keys_) +
               ". Each pair is {\"input\": [[...], ...], \"output\": [[...], ...]}.");
        state_ = State::Pairs;
        return true;
      case State::Sequence:
        if (store_) (in_output_ ? pair_->output : pair_->input).shrink_to_fit();
        state_ = State::Pair;
        return true;
      case State::Token: {
        if (data_.dimension >= 2)  // known already: check now, before storing anything more
          detail::check_token_size(coordinate_count_, data_.dimension, pairs_ - 1, in_output_, tokens_, source_);
        else if (!first_token_)  // "dimension" comes later: the first token's size bounds the others
          first_token_ = TokenSize{pairs_ - 1, in_output_, tokens_, coordinate_count_};
        else if (coordinate_count_ != first_token_->got && !mismatch_)
          mismatch_ = TokenSize{pairs_ - 1, in_output_, tokens_, coordinate_count_};
        if (direct_) {
          store_token(token_);
        } else if (store_) {
          Point p(static_cast<Eigen::Index>(coordinates_.size()));
          for (std::size_t k = 0; k < coordinates_.size(); ++k)
            p[static_cast<Eigen::Index>(k)] = std::move(coordinates_[k]);
          store_token(p);
        }
        ++tokens_;
        state_ = State::Sequence;
        return true;
      }
      case State::Skipping:
        if (--skip_depth_ == 0) state_ = skip_return_;
        return true;
      default:
        fail("internal reader error: unexpected end of a container");
    }
  }

  bool stopped() const { return stop_ && stop_->load(std::memory_order_relaxed); }

  bool scalar(const Scalar& v) {
    if (stopped()) return false;
    switch (state_) {
      case State::Start:
        fail(std::string("the top level must be an object {\"dimension\": ..., \"pairs\": [...]}, got ") +
             describe(v.kind) + ".");
      case State::RootValue:
        root_value(v);
        state_ = State::Root;
        return true;
      case State::Pairs:
        fail("pair " + std::to_string(pairs_ + 1) +
             " must be an object {\"input\": [...], \"output\": [...]}, got " + describe(v.kind) + ".");
      case State::PairValue:
        sequence_type_error(describe(v.kind));
      case State::Sequence:
        fail(token_name() + " must be an array of coordinates, got " + describe(v.kind) +
             ". A sequence is a list of tokens, e.g. [[0, 1], [2, 3]].");
      case State::Token:
        coordinate(v);
        return true;
      case State::SkipValue:
        state_ = skip_return_;
        return true;
      case State::Skipping:
        return true;
      default:
        fail("internal reader error: unexpected value");
    }
  }

  void root_value(const Scalar& v) {
    if (key_ == "name") {
      if (v.kind != Scalar::String)
        root_type_error(describe(v.kind));
      data_.name = v.text;
    } else if (key_ == "dimension") {
      if (v.kind != Scalar::Integer && v.kind != Scalar::Unsigned) root_type_error(describe(v.kind));
      if (v.kind == Scalar::Unsigned && std::stoull(v.text) > static_cast<unsigned long long>(INT_MAX))
        fail("\"dimension\" " + v.text + " is too large.");
      long long d = std::stoll(v.text);
      detail::check_dimension_value(d, source_);
      if (d > static_cast<long long>(kMaxDimension))
        fail("\"dimension\" " + v.text + " is larger than " + std::to_string(kMaxDimension) + ", the limit.");
      data_.dimension = static_cast<int>(d);
      // Tokens read before "dimension" are checked by check_hypotheses afterwards.
    } else {
      root_type_error(describe(v.kind));
    }
  }

  [[noreturn]] void root_type_error(const char* got) const {
    if (key_ == "name") fail(std::string("\"name\" must be a string, got ") + got + ".");
    if (key_ == "dimension")
      fail(std::string("\"dimension\" must be an integer such as 2, got ") + got +
           " (write it as a plain JSON integer, without quotes or a decimal point).");
    fail(std::string("\"pairs\" must be an array of {\"input\": [...], \"output\": [...]} objects, got ") +
         got + ".");
  }

  [[noreturn]] void sequence_type_error(const char* got) const {
    fail(pair_name() + ": \"" + (in_output_ ? "output" : "input") +
         "\" must be an array of tokens such as [[0, 1], [2, 3]], got " + got + ".");
  }

  void coordinate(const Scalar& v) {
    ++coordinate_count_;
    if (v.kind == Scalar::Null || v.kind == Scalar::Boolean)
      fail(coordinate_name() + " is " + (v.kind == Scalar::Null ? "null" : "a boolean (" + v.text + ")") +
           "; a coordinate must be a number or a string holding a rational such as \"-3/7\". "
           "Replace it with the intended value.");
    const auto at = static_cast<Eigen::Index>(coordinate_count_ - 1);
    if (direct_ && at < token_.size() && read_small_ratio(v.text, token_[at])) return;  // the common case
    std::string why;
    auto value = parse_rational(v.text, &why);
    if (!value) {
      std::string what = v.kind == Scalar::String ? "the string " + quote(v.text)
                                                  : "the number " + quote(v.text);
      if (why == "zero denominator")
        fail(coordinate_name() + ": " + what +
             " has a zero denominator. Write a rational p/q with q != 0.");
      // The parser's reason helps for near-numbers ("1e", "1.2.3"), not for words ("one").
      const bool numeric_looking = std::any_of(v.text.begin(), v.text.end(), [](char c) {
        return c >= '0' && c <= '9';
      });
      fail(coordinate_name() + ": " + what + " is not an exact rational" +
           (numeric_looking && !why.empty() ? " (" + why + ")" : std::string()) + ". Write an integer, a fraction p/q, or a decimal such as \"0.125\" or \"1e-3\".");
    }
    // Never store more coordinates than the dimension (or, before "dimension" is read, than
    // the first token has, and at most kMaxDimension): a hostile token could be enormous.
    // The count still goes into the dimension message.
    const std::size_t keep = data_.dimension >= 2 ? static_cast<std::size_t>(data_.dimension)
                             : first_token_       ? first_token_->got
                                                  : kMaxDimension;
    if (coordinate_count_ > kMaxDimension && !first_token_ && data_.dimension < 2)
      fail(token_name() + " has more than " + std::to_string(kMaxDimension) +
           " coordinates, the limit on the dimension. Check the token's brackets.");
    if (direct_) {
      if (at < token_.size()) token_[at] = std::move(*value);
    } else if (store_ && coordinates_.size() < keep) {
      coordinates_.push_back(std::move(*value));
    }
  }

  std::string_view text_;
  const std::string& source_;
  Dataset data_;
  State state_ = State::Start;
  State skip_return_ = State::Root;
  std::size_t skip_depth_ = 0;
  std::string key_;
  bool seen_name_ = false, seen_dimension_ = false, seen_pairs_ = false;
  bool seen_input_ = false, seen_output_ = false;
  std::vector<std::string> unknown_root_keys_, unknown_pair_keys_;
  JsonNesting nesting_;  // depth and keys of every open container, skipped values included
  bool in_output_ = false;
  SequencePair* pair_ = nullptr;  // the pair whose tokens are read (store_ only)
  const bool store_;
  const std::atomic<bool>* stop_;
  std::size_t pairs_ = 0;   // pairs begun
  std::size_t tokens_ = 0;  // tokens completed in the current sequence
  std::vector<Rational> coordinates_;  // the current token's coordinates unless direct_
  bool direct_ = false;                 // the current token is read into token_ (dimension known, store_)
  Point token_;
  std::size_t coordinate_count_ = 0;
  // Before "dimension" is read: the first token's size, and the first token of another size.
  struct TokenSize {
    std::size_t pair;
    bool output;
    std::size_t token;
    std::size_t got;
  };
  std::optional<TokenSize> first_token_, mismatch_;
};

// One pass over the text: storing, or validating with counters only; a storing pass stops once
// `stop` is set. strict = true: trailing content after the top-level value is a syntax error.
Dataset reader_pass(std::string_view text, const std::string& source, bool store, const std::atomic<bool>* stop) {
  DatasetReader reader(text, source, store, stop);
  json::sax_parse(text.data(), text.data() + text.size(), &reader, json::input_format_t::json, true);
  return reader.finish();
}

}  // namespace

Dataset parse_dataset_json_stored_only(std::string_view text, const std::string& source) {
  refuse_nul_bytes(text, source);
  Dataset data = reader_pass(text, source, true, nullptr);
  check_hypotheses(data, source);
  return data;
}

Dataset parse_dataset_json(std::string_view text, const std::string& source, unsigned threads) {
  refuse_nul_bytes(text, source);
  // Two passes: the first validates keeping only counters, so a bad token at the end of a large
  // file costs no memory; the second stores.
  std::atomic<bool> invalid{false};
  const auto pass = [&](bool store) { return reader_pass(text, source, store, store ? &invalid : nullptr); };
  // Validating (index 0) and storing (1), at once when threads >= 2: storing stops once validation
  // has failed, and for_each_index rethrows the validation's error, as in sequence. A bad file may
  // then cost up to the memory of a good one of its size.
  std::optional<Dataset> data;
  for_each_index(2, threads, [&](std::size_t k) {
    if (k == 1) {
      data = pass(true);
      return;
    }
    try {
      pass(false);
    } catch (...) {
      invalid = true;
      throw;
    }
  });
  check_hypotheses(*data, source);
  return std::move(*data);
}

Dataset read_dataset_file(const std::string& path, unsigned threads) {
  const std::string text = read_file_limited(path, kMaxDatasetFileBytes, "dataset", " (datasets are .json files)");
  return parse_dataset_json(text, path, threads);
}

}  // namespace seqi
