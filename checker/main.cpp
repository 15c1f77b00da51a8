// seqi-check DATASET MODEL CERTIFICATE: confirms or refutes every claim of a certificate
// written by `verify --certificate`. Exit 0: every claim confirmed; 1: a claim refuted (each
// named); 2: bad input or usage; 3: out of memory.
#include <iostream>
#include <new>
#include <optional>
#include <utility>

#include "claims.hpp"

namespace {

const char* kUsage =
    "usage: seqi-check DATASET.json MODEL.json|MODEL.safetensors CERTIFICATE.json\n"
    "Confirms or refutes every claim of a certificate written by verify --certificate (with the model\n"
    "written by verify --save-model, as JSON or safetensors). Exit 0 all claims confirmed, 1 a claim\n"
    "refuted, 2 bad input.\n";

int run(const std::string& dataset_path, const std::string& model_path, const std::string& cert_path) {
  using namespace check;
  Inputs in;
  std::string dataset_text = read_bytes(dataset_path), model_text = read_bytes(model_path);
  std::optional<SafetensorsModel> st;
  if (model_path.ends_with(".safetensors")) {
    st = read_safetensors(std::move(model_text), model_path);
    model_text = std::move(st->model_json);  // model.sha256 is of these bytes; the model is read from them
  }
  in.cert = parse_json_exact(read_bytes(cert_path), cert_path);
  if (field(in.cert, "format", cert_path) != "seqi-certificate" || field(in.cert, "version", cert_path) != "1")
    throw BadInput(cert_path + ": not a seqi-certificate of version 1");
  if (const json& s = field(in.cert, "setting", cert_path); s != "hardmax" && s != "softmax")
    throw BadInput(cert_path + ": \"setting\" must be \"hardmax\" or \"softmax\"");
  in.dataset_sha256 = sha256_hex(dataset_text);
  in.data = read_dataset(std::exchange(dataset_text, {}), dataset_path);
  in.model_sha256 = sha256_hex(model_text);
  in.model = read_model(std::exchange(model_text, {}), st ? model_path + " metadata seqi_model_json" : model_path);
  Report r;
  r.confirmed("dataset hypotheses H1-H5 (" + std::to_string(in.data.merged) + " duplicate pairs merged)");
  check_hashes_and_counts(r, in);
  if (st) check_safetensors(r, in, *st);
  if (in.model.d == in.data.d) check_verdicts(r, in);
  note_float_statements(r, in.cert);
  r.note("not checked: the engine's list of checks, dataset.name and model.seed (information); each claim above is "
         "recomputed instead");
  std::cout << (r.any_refuted() ? "REFUTED" : "CONFIRMED") << ": " << r.confirmed_count() << " claims confirmed\n";
  return r.any_refuted() ? 1 : 0;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc == 2 && std::string(argv[1]) == "--help") return std::cout << kUsage, 0;
  if (argc != 4) return std::cerr << kUsage, 2;
  try {
    return run(argv[1], argv[2], argv[3]);
  } catch (const check::BadInput& e) {
    std::cerr << "seqi-check: bad input: " << e.what() << "\n";
    return 2;
  } catch (const nlohmann::json::exception& e) {
    std::cerr << "seqi-check: bad input: unexpected JSON value (" << e.what() << ")\n";
    return 2;
  } catch (const std::bad_alloc&) {
    std::cerr << "seqi-check: out of memory\n";
    return 3;
  }
}
