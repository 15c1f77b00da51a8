// The machine-readable certificate (`verify --certificate C.json`, docs/certificate-json.md):
// every claim of a run, written from the same RunReport as the LaTeX certificate's data file,
// for an independent checker (checker/, seqi-check) to confirm or refute.
#pragma once
#include <string>

#include <nlohmann/json.hpp>

#include "seqi/certification/run_report.hpp"
#include "seqi/core/dataset.hpp"

namespace seqi {

inline constexpr const char* kCertificateFormat = "seqi-certificate";
inline constexpr int kCertificateVersion = 1;

// `dataset_sha256`: SHA-256 of exactly the dataset bytes read; `model_sha256`: SHA-256 of the
// bytes `--save-model M.json` writes for the certified transformer (model_json_text).
nlohmann::json certificate_json(const RunReport& report, const Dataset& data, const std::string& dataset_sha256,
                                const std::string& model_sha256);

// Writes certificate_json(...) to `path` through the atomic writer.
void write_certificate_json(const nlohmann::json& certificate, const std::string& path);

}  // namespace seqi
