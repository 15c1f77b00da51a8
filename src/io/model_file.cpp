#include "seqi/io/model_file.hpp"
#include "seqi/io/output_target.hpp"

#include <filesystem>
#include <system_error>

#include "seqi/io/atomic_write.hpp"
#include "seqi/core/input_error.hpp"
#include "seqi/io/model_json.hpp"
#include "seqi/io/model_onnx.hpp"

namespace seqi {
namespace {

void write_bytes(const std::string& path, const std::string& bytes) {
  write_file_atomically(path, "model", [&](std::ostream& out) { out.write(bytes.data(), static_cast<std::streamsize>(bytes.size())); });
}

}  // namespace

bool is_safetensors_path(const std::string& path) { return path.ends_with(".safetensors"); }

void check_model_save_path(const std::string& path) {
  if (path.ends_with(".json") || is_safetensors_path(path) || is_onnx_path(path)) return;
  // A stream (a device, a FIFO, this process's descriptor, through any links) gets JSON; a path
  // that cannot be written is refused here, by its own rule.
  if (resolve_output_target(path, "model").how != OutputTarget::replace) return;
  throw InputError("--save-model " + path + ": unknown model file extension; the accepted ones are .json (exact), "
                   ".safetensors (float64, PyTorch layout) and .onnx (ONNX graph)");
}

void save_model(const Transformer<Rational>& model, const std::string& path, const ModelExportInfo& info) {
  check_model_save_path(path);
  if (is_safetensors_path(path)) return write_bytes(path, model_to_safetensors(model, info));
  if (is_onnx_path(path)) return write_bytes(path, model_to_onnx(model, info));
  write_model_file(model, path);
}

LoadedModel load_model(const std::string& path, bool from_metadata) {
  if (is_onnx_path(path))
    throw InputError(path + ": ONNX models are written (--save-model), not read; give the .json or .safetensors "
                     "model the run saved");
  if (!is_safetensors_path(path)) {
    if (from_metadata)
      throw InputError(path + ": --model-metadata applies to .safetensors model files; a JSON model is exact already");
    return {read_model_file(path), std::nullopt};
  }
  SafetensorsModel m = read_model_safetensors(path);
  LoadedModel out{from_metadata ? exact_model_from_metadata(m, path) : std::move(m.model), std::nullopt};
  if (auto it = m.metadata.find("tau"); it != m.metadata.end()) {
    std::string why;
    out.tau = parse_rational(it->second, &why);
    if (!out.tau || *out.tau <= 0)
      throw InputError(path + ": metadata \"tau\" = \"" + it->second + "\" is not a positive exact rational");
  }
  return out;
}

}  // namespace seqi
