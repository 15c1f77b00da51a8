// What an exported model's metadata says of the run that built it: the exact certificate and
// the float64 and float32 statements (lem:float-run), each naming the tensors it speaks of.
#pragma once
#include <string>
#include <utility>
#include <vector>

#include "seqi/io/model_safetensors.hpp"

namespace seqi {

// Keys "exact_certificate", "float64_statement", "float64_delta" (when shown), "float32_statement",
// "float32_delta" (when shown). tensors: the element type of the exported weights ("float64" or
// "float32"); a statement about the other format says that these tensors are outside it.
std::vector<std::pair<std::string, std::string>> statement_metadata(const ModelExportInfo& info,
                                                                    const std::string& tensors);

}  // namespace seqi
