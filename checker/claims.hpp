// The certificate's claims (docs/certificate-json.md), each recomputed and compared.
#pragma once
#include <map>

#include "check.hpp"

namespace check {

struct Inputs {
  std::string dataset_sha256, model_sha256;  // of the files' bytes (a safetensors model: of its JSON)
  Dataset data;
  Model model;
  json cert;  // numbers as decimal text
};

// A model written by verify --save-model M.safetensors (safetensors.cpp).
struct SafetensorsModel {
  struct Tensor {
    std::vector<std::size_t> shape;
    std::size_t begin = 0;  // the first byte of its little-endian F64 values in `file`
  };
  std::string file;
  std::map<std::string, std::string> metadata;
  std::map<std::string, Tensor> tensors;
  // The exact model in the metadata, dumped as verify --save-model M.json writes it (one-space
  // indent, a final newline): the bytes model.sha256 speaks of.
  std::string model_json;
};
// Reads the header and the exact model; a malformed file is bad input.
SafetensorsModel read_safetensors(std::string bytes, const std::string& path);
// Every tensor entry the double nearest to the exact model's (lem:torch-layout), and the
// metadata's attention, tau, dataset hash and sizes.
void check_safetensors(Report& r, const Inputs& in, const SafetensorsModel& st);
// The float64 and float32 statements: their shape checked, each shown in a note (not re-checked).
void note_float_statements(Report& r, const json& cert);

// The claim at `where` equals `value` (counts, as decimal text); refuted names both.
void claim_equal(Report& r, const json& cert, const std::string& section, const std::string& key,
                 const Q& value);
// Hashes, dataset sizes, counts, ||theta||^2 and the theorem bounds.
void check_hashes_and_counts(Report& r, const Inputs& in);
// Every sequence's verdict in the certificate's setting; softmax: tau against tau*.
void check_verdicts(Report& r, const Inputs& in);

}  // namespace check
