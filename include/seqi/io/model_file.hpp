// Model files by extension: ".safetensors" is the authors' PyTorch layout
// (model_safetensors.hpp), anything else our exact JSON (model_json.hpp).
#pragma once
#include <optional>
#include <string>

#include "seqi/io/model_safetensors.hpp"

namespace seqi {

bool is_safetensors_path(const std::string& path);

// Writes atomically in the format the extension names (info is used by safetensors only).
void save_model(const Transformer<Rational>& model, const std::string& path, const ModelExportInfo& info);

struct LoadedModel {
  Transformer<Rational> model;
  std::optional<Rational> tau;  // the softmax temperature a safetensors file records, if any
};

// Reads a model file. `from_metadata`: for a .safetensors file, the exact rational model in
// its metadata instead of the float tensors (InputError for a JSON file).
LoadedModel load_model(const std::string& path, bool from_metadata);

}  // namespace seqi
