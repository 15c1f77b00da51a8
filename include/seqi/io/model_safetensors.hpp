// Transformers in the module layout of the paper authors' PyTorch code (repository
// DCN-FAU-AvH/exactInterpTF, tikhonov/src/models.py, TF(d, h, tau, causal=False, depth)),
// stored as safetensors. Block i holds
//   blocks.{i}.rho [1], blocks.{i}.eta [1],
//   blocks.{i}.attn.to_q.weight Wq [h, d], .attn.to_k.weight Wk [h, d], .attn.to_v.weight Wv [d, d],
//   blocks.{i}.ff.0.weight U [w, d], .ff.0.bias b [w], .ff.2.weight W [d, w]   (w = 4 on export)
// and computes x = rho*x + attn(x) (weights from the scores (Wq x_i).(Wk x_l) / tau, values Wv x_l),
// then x = eta*x + W relu(U x + b).
//
// Score convention: our score is s_il = <A x_i, x_l> = x_i^T A^T x_l; theirs is
// (Wq x_i).(Wk x_l) = x_i^T Wq^T Wk x_l. They agree iff A = Wk^T Wq (i.e. A^T = Wq^T Wk):
// a rank-one term p q^T of A is a head row with Wq row q^T and Wk row p^T.
#pragma once
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "seqi/io/safetensors.hpp"
#include "seqi/model/transformer.hpp"

namespace seqi {

// One block's tensors in exact rationals (before any rounding).
struct AuthorsBlock {
  Rational rho, eta;
  Mat<Rational> Wq, Wk, Wv;  // h x d, h x d, d x d
  Mat<Rational> U;           // w x d
  Vec<Rational> b;           // w
  Mat<Rational> W;           // d x w
};

// Exact factorisation of every block (Wk^T Wq = A, Wv = V, FF unchanged), zero-padded to one
// common h (>= 1) and width max(4, widest FF). A block's heads: alpha = 0 and at most d
// rank-one terms: one head per term (Wq row q^T, Wk row p^T); otherwise h = d with Wq = I,
// Wk = A^T.
std::vector<AuthorsBlock> authors_layout(const Transformer<Rational>& model);

// The transformer those tensors denote: A = Wk^T Wq and V = Wv in structured form
// (structured_from_dense), FF units that are exact no-ops dropped (W column zero, or U row
// zero with b <= 0). Phases are "user".
Transformer<Rational> model_from_authors_layout(const std::vector<AuthorsBlock>& blocks, int d);

struct ModelExportInfo {
  std::optional<Rational> tau;  // softmax temperature; nullopt: hardmax
  std::string dataset_sha256;   // of the dataset file the model was built for
  // The statements of the run that built the model (recorded in ONNX and safetensors metadata):
  bool certified = false;               // the exact certificate holds: T(X_j) = Y_j for every pair
  std::optional<double> float64_delta{};  // the float64 statement (lem:float-run) is shown with this delta
  std::string float64_not_shown{};        // else why not ("" when it was not computed)
  std::optional<double> float32_delta{};  // the float32 statement: weights rounded once to nearest binary32
  std::string float32_not_shown{};
  bool onnx_float32 = false;            // .onnx: float32 tensors and input instead of float64
};

// The safetensors bytes: float64 tensors (each the double nearest to the exact value) and
// metadata "format", "format_version", "layout", "score_convention", "attention" (hardmax or
// softmax), "tau" (exact rational text, softmax only), "dataset_sha256", "seqi_version",
// "d", "h", "width", "depth" and "seqi_model_json" (the exact rational model, model_to_json).
std::string model_to_safetensors(const Transformer<Rational>& model, const ModelExportInfo& info);

struct SafetensorsModel {
  Transformer<Rational> model;                  // what the stored floats denote, exactly
  std::map<std::string, std::string> metadata;  // as stored
};

// Reads a file in the layout above (F64, F32, F16 or BF16 tensors; each float becomes the
// exact rational it denotes). Throws InputError naming the file and tensor on: a malformed
// container, a missing, unknown or misnamed tensor, blocks not numbered 0..L-1, a shape that
// disagrees with d, h or w, NaN or infinite weights, metadata that contradicts the tensors
// (check_model_metadata). The header is checked against the file's size before any tensor
// byte is read (read_safetensors_file).
SafetensorsModel read_model_safetensors(const std::string& path);
// The same from the file's bytes (`source` names it in messages).
SafetensorsModel model_from_safetensors(std::string_view bytes, const std::string& source);
// The same from a decoded container.
SafetensorsModel model_from_safetensors_file(const SafetensorsFile& file, const std::string& source);

// The exact rational model stored in the metadata "seqi_model_json" of a file written by
// seqi. Throws InputError when the key is absent or the JSON is not a valid model.
Transformer<Rational> exact_model_from_metadata(const SafetensorsModel& m, const std::string& path);

}  // namespace seqi
