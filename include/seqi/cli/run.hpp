// The verify command: options, the run, and its exit code.
#pragma once
#include <cstdint>
#include <iosfwd>
#include <optional>
#include <string>

namespace seqi {

struct VerifyOptions {
  std::string dataset_path;
  std::string model_path;       // verify this model instead of building one
  bool model_metadata = false;  // .safetensors: the exact model in its metadata, not its floats
  std::string save_model_path;  // write the built model here
  std::string onnx_dtype = "float64";  // element type of a .onnx --save-model: float64 or float32
  std::string save_property_dir;      // --save-property: VNN-LIB benchmark of the built model
  std::string property_sequences;     // "1,4,6": the sequences given properties (default: all)
  unsigned property_timeout = 60;     // seconds, the timeout column of instances.csv
  std::string report_path;      // LaTeX certificate
  std::string certificate_path;  // machine-readable certificate (JSON) for seqi-check
  bool pdf = false;
  bool softmax = false;
  std::optional<std::string> tau;  // exact rational text
  unsigned precision_bits = 0;     // 0: chosen from the data
  bool json = false;
  bool brute = false;
  bool leader_construction = false;  // --leader-construction: no mean collapse (lem:mean-collapse)
  bool mean_collapse = false;        // --mean-collapse: the mean collapse where it applies, not compared
  std::uint64_t seed = 1;
  std::optional<std::string> tolerance;  // --model: certify Hausdorff distance <= this exact rational
  unsigned refinements = 3;              // --model --softmax: precision doublings after the first pass
  unsigned branch_limit = 4;             // --model --softmax: undecided ReLUs per token and layer branched on
  unsigned bisections = 8;               // --model --softmax: cell splits per sequence undecided at the last precision
  bool progress = false;                 // report phases on the error stream (--progress, or it is a terminal)
  bool progress_terminal = false;        // the error stream is a terminal: redraw one line in place
  unsigned progress_delay_ms = 2000;     // silent until the run has taken this long
  unsigned threads = 0;                  // per-sequence certification work; 0: every core
  std::string float_statements = "float64,float32";  // lem:float-run formats stated: these, one, or "none"
};

// The float runs a --float-statements text asks for (lem:float-run): "float64,float32" (either
// order), "float64", "float32" or "none"; nullopt for any other text.
struct StatementChoice {
  bool float64 = true, float32 = true;
};
std::optional<StatementChoice> parse_float_statements(const std::string& text);
inline constexpr const char* kFloatStatementsExpected = "expected float64,float32, float64, float32 or none";

// 3: out of memory (std::bad_alloc, or GMP could not allocate): the input may be valid but
// needs more memory than the machine gives.
enum ExitCode { kVerified = 0, kNotVerified = 1, kBadInput = 2, kOutOfMemory = 3 };

class Cooperation;  // seqi/cli/cooperation.hpp

// Runs a verification and prints the summary; returns the exit code. With `coop` (verify-mpi)
// the work is shared with the other processes and only coop->writes_output() writes files.
int run_verify(const VerifyOptions& opt, std::ostream& out, std::ostream& err, const Cooperation* coop = nullptr);

// `verify import ...`: builds a dataset file from Fashion-MNIST or .npy arrays (argv[0] = "import").
int run_import(int argc, char** argv);

// Parses argv and dispatches (verify, import); returns the exit code. `coop`: see run_verify.
int verify_main(int argc, char** argv, const Cooperation* coop = nullptr);

}  // namespace seqi
