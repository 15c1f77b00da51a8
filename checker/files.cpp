// Reading files: bytes, SHA-256, JSON with numbers kept as text, exact rationals.
#include <cctype>
#include <fstream>
#include <sstream>
#include <vector>

#include <nettle/sha2.h>

#include "check.hpp"

namespace check {

std::string read_bytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw BadInput(path + ": cannot be opened; check the path");
  std::ostringstream s;
  s << in.rdbuf();
  if (in.bad()) throw BadInput(path + ": read error");
  return s.str();
}

std::string sha256_hex(const std::string& bytes) {
  sha256_ctx ctx;
  sha256_init(&ctx);
  sha256_update(&ctx, bytes.size(), reinterpret_cast<const std::uint8_t*>(bytes.data()));
  std::uint8_t digest[SHA256_DIGEST_SIZE];
  sha256_digest(&ctx, SHA256_DIGEST_SIZE, digest);
  static const char* hex = "0123456789abcdef";
  std::string out;
  for (std::uint8_t byte : digest) out += hex[byte >> 4], out += hex[byte & 15];
  return out;
}

namespace {

constexpr std::size_t kMaxDepth = 64;

// Builds a json value; every number is stored as its decimal text.
class ExactSax {
 public:
  explicit ExactSax(std::string path) : path_(std::move(path)) {}
  json result;

  bool null() { return put(nullptr); }
  bool boolean(bool v) { return put(v); }
  bool number_integer(json::number_integer_t v) { return put(std::to_string(v)); }
  bool number_unsigned(json::number_unsigned_t v) { return put(std::to_string(v)); }
  bool number_float(json::number_float_t, const std::string& text) { return put(text); }
  bool string(std::string& v) { return put(std::move(v)); }
  bool binary(json::binary_t&) { return false; }
  bool start_object(std::size_t) { return open(json::object()); }
  bool start_array(std::size_t) { return open(json::array()); }
  bool end_object() { return close(); }
  bool end_array() { return close(); }
  bool key(std::string& k) {
    if (stack_.back()->contains(k)) throw BadInput(path_ + ": the key \"" + k + "\" appears twice in one object");
    key_ = std::move(k);
    return true;
  }
  bool parse_error(std::size_t, const std::string&, const nlohmann::detail::exception& e) {
    throw BadInput(path_ + ": not valid JSON (" + e.what() + ")");
  }

 private:
  json* place(json v) {
    if (stack_.empty()) return &(result = std::move(v));
    json& top = *stack_.back();
    if (top.is_array()) return &top.emplace_back(std::move(v));
    return &(top[key_] = std::move(v));
  }
  bool put(json v) { return place(std::move(v)), true; }
  bool open(json v) {
    if (stack_.size() >= kMaxDepth) throw BadInput(path_ + ": JSON nested deeper than 64 levels");
    stack_.push_back(place(std::move(v)));
    return true;
  }
  bool close() { return stack_.pop_back(), true; }

  std::string path_, key_;
  std::vector<json*> stack_;
};

bool all_digits(const std::string& s) {
  if (s.empty()) return false;
  for (char c : s)
    if (!std::isdigit(static_cast<unsigned char>(c))) return false;
  return true;
}

// [+-]digits/digits, or [+-](digits[.digits] | .digits)[(e|E)[+-]digits].
bool parse_text(const std::string& text, Q& out) {
  constexpr std::size_t kMaxLength = 100000;
  constexpr long kMaxExponent = 1000;
  if (text.empty() || text.size() > kMaxLength) return false;
  std::size_t k = (text[0] == '-' || text[0] == '+') ? 1 : 0;
  const bool negative = text[0] == '-';
  const std::string body = text.substr(k);
  if (const auto slash = body.find('/'); slash != std::string::npos) {
    const std::string p = body.substr(0, slash), q = body.substr(slash + 1);
    if (!all_digits(p) || !all_digits(q)) return false;
    const mpz_class den(q, 10);
    if (den == 0) return false;
    out = Q(mpz_class(p, 10), den);
    out.canonicalize();
  } else {
    const auto e = body.find_first_of("eE");
    const std::string mant = body.substr(0, e);
    long exponent = 0;
    if (e != std::string::npos) {
      std::string ex = body.substr(e + 1);
      const bool neg_ex = !ex.empty() && ex[0] == '-';
      if (!ex.empty() && (ex[0] == '-' || ex[0] == '+')) ex = ex.substr(1);
      if (!all_digits(ex) || ex.size() > 5) return false;
      exponent = std::stol(ex) * (neg_ex ? -1 : 1);
      if (exponent > kMaxExponent || exponent < -kMaxExponent) return false;
    }
    const auto dot = mant.find('.');
    const std::string whole = mant.substr(0, dot), frac = dot == std::string::npos ? "" : mant.substr(dot + 1);
    if ((whole.empty() && frac.empty()) || (!whole.empty() && !all_digits(whole)) || (!frac.empty() && !all_digits(frac)))
      return false;
    exponent -= static_cast<long>(frac.size());
    mpz_class num(whole + frac, 10), scale;
    mpz_ui_pow_ui(scale.get_mpz_t(), 10, static_cast<unsigned long>(exponent < 0 ? -exponent : exponent));
    out = exponent < 0 ? Q(num, scale) : Q(num * scale);
    out.canonicalize();
  }
  if (negative) out = -out;
  return true;
}

}  // namespace

json parse_json_exact(const std::string& text, const std::string& path) {
  ExactSax sax(path);
  if (!json::sax_parse(text, &sax)) throw BadInput(path + ": not valid JSON");
  return std::move(sax.result);
}

Q parse_q(const json& value, const std::string& where) {
  Q out;
  if (!value.is_string() || !parse_text(value.get<std::string>(), out))
    throw BadInput(where + ": expected an exact rational such as \"-3/7\" or 0.125, got " + value.dump().substr(0, 80));
  return out;
}

std::size_t parse_count(const json& value, const std::string& where) {
  Q q;
  if (!value.is_string() || !parse_text(value.get<std::string>(), q) || q.get_den() != 1 || q < 0 ||
      !q.get_num().fits_ulong_p())
    throw BadInput(where + ": expected a non-negative integer, got " + value.dump().substr(0, 80));
  return q.get_num().get_ui();
}

const json& field(const json& object, const std::string& key, const std::string& where) {
  if (!object.is_object() || !object.contains(key)) throw BadInput(where + ": the key \"" + key + "\" is missing");
  return object.at(key);
}

}  // namespace check
