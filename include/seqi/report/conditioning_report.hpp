// The conditioning report (proofs/conditioning.tex) as text, JSON and a LaTeX fragment.
// Exact margins are printed as decimals (exact values in JSON); float runs are measurements.
#pragma once
#include <string>

#include <nlohmann/json.hpp>

#include "seqi/certification/conditioning.hpp"

namespace seqi {

std::string conditioning_text(const ConditioningReport& rep);
nlohmann::json conditioning_json(const ConditioningReport& rep);
std::string conditioning_latex(const ConditioningReport& rep);

}  // namespace seqi
