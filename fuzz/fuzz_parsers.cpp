// libFuzzer target: the dataset reader and the model readers (JSON, safetensors) must turn any bytes into either
// a valid result or an InputError, never a crash, a hang or undefined behaviour.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "seqi/io/dataset_json.hpp"
#include "seqi/io/exact_json.hpp"
#include "seqi/io/model_json.hpp"
#include "seqi/core/input_error.hpp"
#include "seqi/io/model_safetensors.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  try {
    seqi::parse_dataset_json(text, "fuzz-input");
  } catch (const seqi::InputError&) {
  }
  try {
    seqi::model_from_json(seqi::parse_exact_json(text, "fuzz-input"), "fuzz-input");
  } catch (const seqi::InputError&) {
  }
  try {
    seqi::model_from_safetensors(text, "fuzz-input");
  } catch (const seqi::InputError&) {
  }
  return 0;
}
