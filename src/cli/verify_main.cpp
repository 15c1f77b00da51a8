#include <CLI/CLI.hpp>
#include <iostream>
#include <string>

#include "seqi/cli/parse_args.hpp"
#include "seqi/cli/run.hpp"

namespace seqi {

int verify_main(int argc, char** argv) {
  if (argc >= 2 && std::string(argv[1]) == "import") return run_import(argc - 1, argv + 1);
  CLI::App app{"verify: build and certify a transformer that interpolates a dataset exactly "
               "(Alcalde, Fantuzzi, Zuazua, Thm 1.6 hardmax / Thm 1.8 softmax).\n"
               "Exit codes: 0 verified, 1 not verified, 2 bad input or usage."};
  app.set_version_flag("--version", SEQI_VERSION);
  VerifyOptions opt;
  bool exact = false;
  auto* exact_flag = app.add_flag("--exact", exact, "hardmax attention, exact rational arithmetic (the default)");
  app.add_flag("--softmax", opt.softmax, "softmax attention: certify tau* and verify at tau (default tau*/2)")
      ->excludes(exact_flag);
  app.add_option("--tau", opt.tau, "softmax temperature, an exact rational such as 1/1000");
  app.add_option("--precision", opt.precision_bits, "interval precision in bits (softmax; default from the data)");
  app.add_option("--model", opt.model_path, "verify this model file instead of building one");
  app.add_option("--tolerance", opt.tolerance,
                 "with --model: also accept a sequence whose outputs are within this Hausdorff distance of its "
                 "targets (an exact rational such as 1/1000 or 1e-6; default 0: exact)");
  app.add_option("--refinements", opt.refinements,
                 "with --model --softmax: precision doublings when a sequence is undecided (default 3)");
  app.add_option("--branch-limit", opt.branch_limit,
                 "with --model --softmax: undecided ReLUs per token and layer split into exact sign cases (default 4)");
  app.add_option("--save-model", opt.save_model_path, "write the built transformer to this model file");
  app.add_option("--report", opt.report_path, "write a LaTeX certificate to this .tex file");
  app.add_flag("--pdf", opt.pdf, "also run pdflatex on the report");
  app.add_flag("--json", opt.json, "print the summary as one JSON object");
  app.add_flag("--brute", opt.brute, "Lemma P from all O(n^2 d) attention scores instead of O(n d) bounds");
  std::string seed_text = "1";
  app.add_option("--seed", seed_text, "seed of the generic choices, 0 to 2^64-1 (recorded in the output)");
  app.add_option("dataset", opt.dataset_path, "dataset JSON file")->required();
  if (auto done = parse_args(app, argc, argv)) return *done;
  if (seed_text.empty() || seed_text.size() > 20 || seed_text.find_first_not_of("0123456789") != std::string::npos ||
      (seed_text.size() == 20 && seed_text > "18446744073709551615")) {
    std::cerr << "verify: --seed " << seed_text << ": expected an integer from 0 to 18446744073709551615\n";
    return kBadInput;
  }
  opt.seed = std::stoull(seed_text);
  if (opt.tau && !opt.softmax) {
    std::cerr << "verify: --tau needs --softmax\n";
    return kBadInput;
  }
  if (opt.pdf && opt.report_path.empty()) {
    std::cerr << "verify: --pdf needs --report FILE.tex\n";
    return kBadInput;
  }
  return run_verify(opt, std::cout, std::cerr);
}

}  // namespace seqi
