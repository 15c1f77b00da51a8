// The metadata of a .safetensors model checked against its tensors: a field the writer
// records (model_to_safetensors, python/seqi_torch.py save_transformer) may be absent, but
// when present it must agree with the tensors and with the other fields.
#pragma once
#include <cstddef>
#include <map>
#include <string>

namespace seqi {

inline constexpr const char* kSafetensorsModelFormat = "seqi-transformer-safetensors";
inline constexpr const char* kSafetensorsModelLayout =
    "exactInterpTF TF(d, h, tau, causal=False, depth): x = rho*x + attn(x); x = eta*x + ff(x)";
inline constexpr const char* kSafetensorsScoreConvention =
    "score(x_i, x_l) = (Wq x_i).(Wk x_l) = <A x_i, x_l> with A = Wk^T Wq";

// What the tensors establish.
struct TensorShapes {
  std::size_t d = 0, depth = 0, h = 0, width = 0;
};

// Throws InputError naming `path` and the field when: "format" is neither the seqi format nor
// "pt" (the tag safetensors.torch writes); the seqi format comes without "format_version" "1",
// or a "format_version" other than "1" is given; "d", "depth", "h" or "width" is not the
// tensors' value; "attention" is neither "hardmax" nor "softmax", or "tau" comes with hardmax;
// "layout" or "score_convention" states another convention than the one the tensors are read
// in. Other keys are kept, unchecked: "dataset_sha256" and "seqi_version" say where the file
// came from (a model may be verified on other data), "seqi_model_json" is read with
// --model-metadata.
void check_model_metadata(const std::map<std::string, std::string>& metadata, const TensorShapes& tensors,
                          const std::string& path);

}  // namespace seqi
