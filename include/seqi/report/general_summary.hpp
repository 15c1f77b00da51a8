// Summary lines and JSON of a general model's per-sequence verdicts.
#pragma once
#include <string>

#include <nlohmann/json.hpp>

#include "seqi/certification/general_facts.hpp"

namespace seqi {

std::string general_summary_text(const GeneralFacts& f);
nlohmann::json general_summary_json(const GeneralFacts& f);

}  // namespace seqi
