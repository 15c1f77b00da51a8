// Model files by extension: ".json" our exact JSON (model_json.hpp), ".safetensors" the
// authors' PyTorch layout (model_safetensors.hpp), ".onnx" an ONNX graph (model_onnx.hpp,
// written only). Reading takes any other name as JSON.
#pragma once
#include <optional>
#include <string>

#include "seqi/io/model_safetensors.hpp"

namespace seqi {

bool is_safetensors_path(const std::string& path);

// InputError unless the path ends in .json, .safetensors or .onnx (the message lists them) or
// is an existing device or FIFO (/dev/stdout, /dev/full), which gets JSON.
void check_model_save_path(const std::string& path);

// Writes atomically in the format the extension names (info is used by safetensors and ONNX);
// InputError for any other extension.
void save_model(const Transformer<Rational>& model, const std::string& path, const ModelExportInfo& info);

struct LoadedModel {
  Transformer<Rational> model;
  std::optional<Rational> tau;  // the softmax temperature a safetensors file records, if any
};

// Reads a model file. `from_metadata`: for a .safetensors file, the exact rational model in
// its metadata instead of the float tensors (InputError for a JSON file).
LoadedModel load_model(const std::string& path, bool from_metadata);

}  // namespace seqi
