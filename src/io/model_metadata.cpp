#include "seqi/io/model_metadata.hpp"

#include <utility>

#include "seqi/core/input_error.hpp"
#include "seqi/io/quote_value.hpp"

namespace seqi {
namespace {

[[noreturn]] void refuse(const std::string& path, const std::string& field, const std::string& value, const std::string& why) {
  throw InputError(path + ": metadata \"" + field + "\" = " + quote_value(value) + " " + why +
                   ". Fix or remove the field (the metadata must describe the tensors), or write the file again "
                   "with verify --save-model or python/seqi_torch.py save_transformer.");
}

const std::string* field(const std::map<std::string, std::string>& m, const std::string& key) {
  auto it = m.find(key);
  return it == m.end() ? nullptr : &it->second;
}

}  // namespace

void check_model_metadata(const std::map<std::string, std::string>& metadata, const TensorShapes& tensors,
                          const std::string& path) {
  const std::string* format = field(metadata, "format");
  const std::string* version = field(metadata, "format_version");
  if (format && *format != kSafetensorsModelFormat && *format != "pt")
    refuse(path, "format", *format, std::string("is not a format this engine reads (\"") + kSafetensorsModelFormat + "\" or \"pt\")");
  if (format && *format == kSafetensorsModelFormat && !version)
    throw InputError(path + ": metadata \"format\" is \"" + kSafetensorsModelFormat +
                     "\" but \"format_version\" is missing; this engine reads format_version \"1\".");
  if (version && *version != "1") refuse(path, "format_version", *version, "is not 1, the version this engine reads");
  const std::pair<const char*, std::size_t> counts[] = {
      {"d", tensors.d}, {"depth", tensors.depth}, {"h", tensors.h}, {"width", tensors.width}};
  for (const auto& [key, value] : counts)
    if (const std::string* v = field(metadata, key); v && *v != std::to_string(value))
      refuse(path, key, *v, "contradicts the tensors, which give " + std::string(key) + " = " + std::to_string(value));
  const std::string* attention = field(metadata, "attention");
  if (attention && *attention != "hardmax" && *attention != "softmax")
    refuse(path, "attention", *attention, "is neither \"hardmax\" nor \"softmax\"");
  if (attention && *attention == "hardmax" && field(metadata, "tau"))
    refuse(path, "attention", *attention, "contradicts metadata \"tau\", a softmax temperature");
  if (const std::string* v = field(metadata, "layout"); v && *v != kSafetensorsModelLayout)
    refuse(path, "layout", *v, std::string("is not the layout the tensors are read in (\"") + kSafetensorsModelLayout + "\")");
  if (const std::string* v = field(metadata, "score_convention"); v && *v != kSafetensorsScoreConvention)
    refuse(path, "score_convention", *v,
           std::string("is not the convention the tensors are read in (\"") + kSafetensorsScoreConvention + "\")");
}

}  // namespace seqi
