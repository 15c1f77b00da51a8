// Model files: a transformer with exact rational parameters, as JSON.
//   {"format": "seqi-transformer", "version": 1, "dimension": d,
//    "blocks": [{"phase": "placement",
//                "attention": {"rho": "1", "A": {"alpha": "0", "terms": [{"p": [...], "q": [...]}]}, "V": {...}},
//                "feed_forward": {"eta": "1", "U": [[w rows of d]], "b": [w], "W": [[d rows of w]]}}]}
// Every scalar is an exact rational written as a string ("-3/7") or a JSON number read exactly.
#pragma once
#include <string>

#include <nlohmann/json.hpp>

#include "seqi/model/transformer.hpp"
#include "seqi/core/input_error.hpp"

namespace seqi {

nlohmann::json model_to_json(const Transformer<Rational>& model);
// Exactly the bytes write_model_file writes (--save-model M.json); a certificate hashes them.
std::string model_json_text(const Transformer<Rational>& model);
void write_model_file(const Transformer<Rational>& model, const std::string& path);

// Throws InputError naming the file, block and field on any malformed or inconsistent entry.
Transformer<Rational> model_from_json(const nlohmann::json& j, const std::string& source);
Transformer<Rational> read_model_file(const std::string& path);

}  // namespace seqi
