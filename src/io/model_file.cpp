#include "seqi/io/model_file.hpp"

#include "seqi/io/atomic_write.hpp"
#include "seqi/core/input_error.hpp"
#include "seqi/io/model_json.hpp"

namespace seqi {

bool is_safetensors_path(const std::string& path) {
  const std::string ext = ".safetensors";
  return path.size() >= ext.size() && path.compare(path.size() - ext.size(), ext.size(), ext) == 0;
}

void save_model(const Transformer<Rational>& model, const std::string& path, const ModelExportInfo& info) {
  if (!is_safetensors_path(path)) return write_model_file(model, path);
  const std::string bytes = model_to_safetensors(model, info);
  write_file_atomically(path, "model", [&](std::ostream& out) { out.write(bytes.data(), static_cast<std::streamsize>(bytes.size())); });
}

LoadedModel load_model(const std::string& path, bool from_metadata) {
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
