// Transformers as ONNX graphs of standard operators (opset 13, IR version 8): input "X"
// [n, d] with n symbolic, output "Y" [n, d], float64 (or float32 on request). Each block is
//   x = rho x + V m(x),   m_i = hardmax (ties averaged) or softmax average of the tokens x_l
//                          under the scores s_il = <A x_i, x_l> (divided by tau for softmax),
//   x = eta x + W relu(U x + b),
// evaluated in the order of def:float-run (proofs/float-run.tex): structured products
// alpha x + P (Q x), hardmax as {l : s_il = max_l s_il} by exact equality of the computed
// scores with weights 1/|C_i| (never ONNX's Hardmax, which keeps the first maximum),
// softmax as (sum_l e_l x_l) / (sum_l e_l) with e_l = exp(s_il / tau - max_l s_il / tau).
// Weights are the nearest doubles (floats) to the exact rationals.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "seqi/io/model_safetensors.hpp"

namespace seqi {

bool is_onnx_path(const std::string& path);

// The serialized ModelProto; metadata_props as onnx_metadata. `tokens`: the number of tokens n
// fixed in the shapes of X and Y (as verifiers' benchmark harnesses need), else n symbolic.
std::string model_to_onnx(const Transformer<Rational>& model, const ModelExportInfo& info,
                          std::optional<std::int64_t> tokens = std::nullopt);

// metadata_props: "seqi_format", "attention", "tau" (softmax, exact rational), "tie_rule"
// (hardmax), "graph_dtype", "model_sha256" (of the exact model as a .json model file),
// "dataset_sha256", "exact_certificate", "float64_statement", "float64_delta" (when shown),
// "seqi_version", "d", "depth".
std::vector<std::pair<std::string, std::string>> onnx_metadata(const Transformer<Rational>& model,
                                                               const ModelExportInfo& info);

}  // namespace seqi
