#include <CLI/CLI.hpp>
#include <iostream>
#include <string>
#include <unistd.h>

#include "parse_args.hpp"
#include "seqi/cli/allocator.hpp"
#include "seqi/cli/run.hpp"
#include "seqi/cli/unsigned_option.hpp"
#include "seqi/io/quote_value.hpp"
#include "seqi/numbers/gmp_out_of_memory.hpp"

namespace seqi {

namespace {

// The first option given that does not apply to this run (they are refused, never ignored), or
// nullptr.
const char* inapplicable_option(const CLI::App& app, const VerifyOptions& opt) {
  const bool model = !opt.model_path.empty();
  const std::pair<bool, const char*> refused[] = {
      {opt.tau && !opt.softmax, "--tau needs --softmax"},
      {app.count("--precision") != 0 && !opt.softmax, "--precision needs --softmax (hardmax runs are exact)"},
      {opt.pdf && opt.report_path.empty(), "--pdf needs --report FILE.tex"},
      {model && !opt.save_model_path.empty(),
       "--save-model saves a transformer this run builds; with --model nothing is built"},
      {app.count("--onnx-dtype") != 0 && !opt.save_model_path.ends_with(".onnx"),
       "--onnx-dtype applies to --save-model M.onnx"},
      {model && !opt.save_property_dir.empty(),
       "--save-property states properties of a transformer this run builds; with --model nothing is built"},
      {opt.save_property_dir.empty() && app.count("--property-sequences") != 0,
       "--property-sequences applies to --save-property DIR"},
      {opt.save_property_dir.empty() && app.count("--property-timeout") != 0,
       "--property-timeout applies to --save-property DIR"},
      {model && app.count("--seed") != 0, "--seed chooses the construction's generic values; with --model nothing is built"},
      {model && !opt.certificate_path.empty(),
       "--certificate states the claims of a transformer this run builds; with --model nothing is built"},
      {model && app.count("--float-statements") != 0,
       "--float-statements applies to a transformer this run builds; a given model is checked by its float replays"},
      {model && opt.brute, "--brute applies to the construction's Lemma P check; with --model nothing is built"},
      {model && opt.leader_construction, "--leader-construction chooses how the transformer is built; with --model nothing is built"},
      {model && opt.mean_collapse, "--mean-collapse chooses how the transformer is built; with --model nothing is built"},
      {opt.mean_collapse && opt.leader_construction, "--mean-collapse and --leader-construction exclude each other"},
      {model && opt.softmax && !opt.tau && !opt.model_path.ends_with(".safetensors"),
       "--softmax --model needs --tau: a user's model has no certified tau* (a .safetensors export records its tau)"},
      {!model && app.count("--tolerance") != 0,
       "--tolerance applies to a model given with --model; a built transformer is certified exactly"},
      {(!model || !opt.softmax) && app.count("--refinements") != 0, "--refinements applies to --model --softmax"},
      {(!model || !opt.softmax) && app.count("--branch-limit") != 0, "--branch-limit applies to --model --softmax"},
      {(!model || !opt.softmax) && app.count("--bisections") != 0, "--bisections applies to --model --softmax"},
  };
  for (const auto& [bad, message] : refused)
    if (bad) return message;
  return nullptr;
}

// How the transformer is built and which claims accompany it (options of a built run only).
void add_construction_options(CLI::App& app, VerifyOptions& opt) {
  app.add_flag("--leader-construction", opt.leader_construction,
               "build with phases S, P, C and I even where every m_j = 1 (no mean collapse, lem:mean-collapse)");
  app.add_flag("--mean-collapse", opt.mean_collapse,
               "where every m_j = 1 and the means differ, the mean collapse without comparing norms with phases S-I");
  app.add_flag("--brute", opt.brute, "Lemma P from all O(n^2 d) attention scores instead of O(n d) bounds");
  app.add_option("--float-statements", opt.float_statements,
                 "the float runs stated beside the certificate (lem:float-run): float64,float32 (the default), "
                 "float64, float32 or none; a run without them is faster and makes no float claim")
      ->check(CLI::Validator(
          [](const std::string& v) {
            return parse_float_statements(v) ? std::string() : std::string(kFloatStatementsExpected) + ", got " + quote_value(v);
          },
          "", "statement formats"));
}

}  // namespace

int verify_main(int argc, char** argv, const Cooperation* coop) {
  exit_on_gmp_out_of_memory("verify", kOutOfMemory);
  if (argc >= 2 && std::string(argv[1]) == "import") return run_import(argc - 1, argv + 1);
  CLI::App app{"verify: build and certify a transformer that interpolates a dataset exactly "
               "(Alcalde, Fantuzzi, Zuazua, Thm 1.6 hardmax / Thm 1.8 softmax).\n"
               "Exit codes: 0 verified, 1 not verified, 2 bad input or usage, 3 out of memory."};
  app.set_version_flag("--version", std::string(SEQI_VERSION) + " (malloc: " + malloc_implementation() + ")");
  VerifyOptions opt;
  bool exact = false;
  auto* exact_flag = app.add_flag("--exact", exact, "hardmax attention, exact rational arithmetic (the default)");
  app.add_flag("--softmax", opt.softmax, "softmax attention: certify tau* and verify at tau (default tau*/2)")
      ->excludes(exact_flag);
  app.add_option("--tau", opt.tau, "softmax temperature, an exact rational such as 1/1000");
  app.add_option("--precision", opt.precision_bits, "interval precision in bits (softmax; default from the data)");
  auto* model_opt = app.add_option("--model", opt.model_path,
                                   "verify this model file instead of building one (.json exact; .safetensors: "
                                   "the PyTorch layout, each float read as the exact rational it denotes)");
  app.add_flag("--model-metadata", opt.model_metadata,
               "with a .safetensors --model: certify the exact rational model in its metadata, not its floats")
      ->needs(model_opt);
  app.add_option("--tolerance", opt.tolerance,
                 "with --model: also accept a sequence whose outputs are within this Hausdorff distance of its "
                 "targets (an exact rational such as 1/1000 or 1e-6; default 0: exact)");
  app.add_option("--refinements", opt.refinements,
                 "with --model --softmax: precision doublings when a sequence is undecided (default 3)");
  app.add_option("--branch-limit", opt.branch_limit,
                 "with --model --softmax: undecided ReLUs per token and layer split into exact sign cases (default 4)");
  app.add_option("--bisections", opt.bisections,
                 "with --model --softmax: splits of the enclosed state when a sequence is still undecided at the "
                 "last precision (default 8; 0 turns bisection off)");
  app.add_option("--save-model", opt.save_model_path,
                 "write the built transformer to this model file (.json exact; .safetensors: float64 in the "
                 "PyTorch layout of python/seqi_torch.py, the exact model in its metadata; .onnx: an ONNX graph "
                 "with the run's statements in its metadata)");
  app.add_option("--onnx-dtype", opt.onnx_dtype, "with --save-model M.onnx: float64 (the default) or float32")
      ->check(CLI::IsMember({"float64", "float32"}));
  app.add_option("--save-property", opt.save_property_dir,
                 "write a VNN-LIB benchmark of the built transformer into this new or empty directory: per "
                 "sequence a true and a false property, fixed-shape float64 ONNX models, instances.csv "
                 "(docs/vnnlib.md)");
  app.add_option("--property-sequences", opt.property_sequences,
                 "with --save-property: only these sequences, numbered from 1 (e.g. 1,4,6; default: all)");
  app.add_option("--property-timeout", opt.property_timeout,
                 "with --save-property: the timeout in seconds written to instances.csv (default 60)")
      ->check(CLI::Range(1u, 86400u));
  app.add_option("--report", opt.report_path, "write a LaTeX certificate to this .tex file");
  app.add_flag("--pdf", opt.pdf, "also run pdflatex on the report");
  app.add_option("--certificate", opt.certificate_path,
                 "write every claim of the run to this JSON file, for the independent checker seqi-check");
  app.add_flag("--json", opt.json, "print the summary as one JSON object");
  add_construction_options(app, opt);
  bool progress = false;
  app.add_flag("--progress", progress,
               "report phase, done/total, rate and ETA on stderr once the run takes over 2 s (the default when "
               "stderr is a terminal); never on stdout");
  app.add_option("--progress-delay", opt.progress_delay_ms, "milliseconds before the progress report starts (default 2000)");
  app.add_option("--threads", opt.threads,
                 "threads for the per-sequence certification work (default: every core); the output does not "
                 "depend on it")
      ->check(CLI::Range(1u, 1024u));
  std::string seed_text = "1";
  app.add_option("--seed", seed_text, "seed of the generic choices, 0 to 2^64-1 (recorded in the output)");
  app.add_option("dataset", opt.dataset_path, "dataset JSON file")->required();
  if (auto done = parse_args(app, argc, argv)) return *done;
  // Everything below is checked before any file is read or written.
  const std::pair<const char*, const std::string*> paths[] = {{"--model", &opt.model_path},
                                                              {"--save-model", &opt.save_model_path},
                                                              {"--save-property", &opt.save_property_dir},
                                                              {"--report", &opt.report_path},
                                                              {"--certificate", &opt.certificate_path},
                                                              {"dataset", &opt.dataset_path}};
  for (const auto& [name, value] : paths)
    if (app.count(name) != 0 && value->empty()) {
      std::cerr << "verify: " << name << " was given an empty file name (an unset variable?); give a path\n";
      return kBadInput;
    }
  if (app.count("--property-sequences") != 0 && opt.property_sequences.empty()) {
    std::cerr << "verify: --property-sequences was given an empty list; name sequences from 1, e.g. 1,4,6\n";
    return kBadInput;
  }
  const auto seed = unsigned_option_value(seed_text);
  if (!seed) {
    std::cerr << "verify: --seed " << quote_value(seed_text) << ": expected an integer from 0 to 18446744073709551615\n";
    return kBadInput;
  }
  opt.seed = *seed;
  if (const char* message = inapplicable_option(app, opt)) {
    std::cerr << "verify: " << message << "\n";
    return kBadInput;
  }
  opt.progress_terminal = isatty(STDERR_FILENO) == 1;
  opt.progress = progress || opt.progress_terminal;
  return run_verify(opt, std::cout, std::cerr, coop);
}

}  // namespace seqi
