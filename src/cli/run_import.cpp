// `verify import fashion-mnist|npy ... -o FILE.json`: writes a dataset file for `verify`.
#include <CLI/CLI.hpp>
#include <iostream>
#include <new>
#include <optional>
#include <stdexcept>
#include <system_error>

#include "parse_args.hpp"
#include "seqi/cli/resource_failure.hpp"
#include "seqi/cli/run.hpp"
#include "seqi/cli/unsigned_option.hpp"
#include "seqi/io/dataset_writer.hpp"
#include "seqi/io/import_datasets.hpp"
#include "seqi/core/input_error.hpp"
#include "seqi/io/output_paths.hpp"
#include "seqi/io/quote_value.hpp"

namespace seqi {

namespace {

// The options of both subcommands, as typed (integers as text: unsigned_option_value checks them).
struct ImportArgs {
  std::string output;
  CLI::App* fm = nullptr;
  std::string patch_text, count_text, mask_text = "0", seed_text = "1";
  std::string task, split = "train", images, labels;
  CLI::Option *mask_opt = nullptr, *images_opt = nullptr, *labels_opt = nullptr;
  std::string inputs_path, lengths, outputs, output_lengths;
};

void add_fashion_mnist_options(CLI::App& app, ImportArgs& a) {
  auto* fm = a.fm = app.add_subcommand(
      "fashion-mnist",
      "Fashion-MNIST images as sequences of p x p patch tokens (pixels k/255, then the patch row and "
      "column); task classify (output: label embedding) or inpaint (output: the masked patches)");
  // Integers are taken as text and checked by unsigned_option_value: "-7" is refused as typed.
  fm->add_option("--patch", a.patch_text, "patch side p (must divide 28: 1, 2, 4, 7, 14, 28)")->required();
  fm->add_option("--count", a.count_text,
                 "number of images drawn (seeded, without replacement), or all (every image with a distinct input)")
      ->required();
  fm->add_option("--split", a.split,
                 "train (60,000 images), test (10,000) or all (train then test: test image k has index 60000 + k)")
      ->check(CLI::IsMember({"train", "test", "all"}))
      ->capture_default_str();
  fm->add_option("--task", a.task, "classify or inpaint")->required()->check(CLI::IsMember({"classify", "inpaint"}));
  a.mask_opt = fm->add_option("--mask", a.mask_text, "inpaint: number of patches removed from each image");
  fm->add_option("--seed", a.seed_text, "seed of the image selection and of the masks (recorded in the name)")
      ->capture_default_str();
  a.images_opt = fm->add_option("--images", a.images,
                                "IDX image file (.gz or plain; default: the --split file of Debian's "
                                "dataset-fashion-mnist in /usr/share/datasets/fashion-mnist)");
  a.labels_opt = fm->add_option("--labels", a.labels, "IDX label file (.gz or plain; classify only)");
  fm->add_option("-o,--output", a.output, "dataset JSON file to write")->required();
}

void add_npy_options(CLI::App& app, ImportArgs& a) {
  auto* np = app.add_subcommand("npy", "NumPy .npy arrays: inputs [total, d] with lengths [N] (or [N, n, d]), "
                                       "outputs [total_out, d] with output lengths [N] (or [N, m, d])");
  np->add_option("--inputs", a.inputs_path, "input tokens X.npy")->required();
  np->add_option("--lengths", a.lengths, "1-D integer n_j of each input sequence (X is then [total, d])");
  np->add_option("--outputs", a.outputs, "output tokens Y.npy")->required();
  np->add_option("--output-lengths", a.output_lengths,
                 "1-D integer m_j of each output sequence (Y is then [total, d])");
  np->add_option("-o,--output", a.output, "dataset JSON file to write")->required();
}

// The IDX files of --split (or the user's), and every input path with its option; an exit
// code when the options contradict one another.
std::optional<int> fashion_mnist_sources(const ImportArgs& a, std::vector<IdxSource>& sources,
                                         std::vector<NamedPath>& inputs) {
  if (a.split == "all" && (a.images_opt->count() || a.labels_opt->count())) {
    std::cerr << "verify import: --images and --labels name one file each; with --split all the package's "
                 "train and test files are read (use --split train or test with your own files)\n";
    return kBadInput;
  }
  if (a.split != "test") sources.push_back({kFashionMnistTrainImages, kFashionMnistTrainLabels});
  if (a.split != "train") sources.push_back({kFashionMnistTestImages, kFashionMnistTestLabels});
  if (a.images_opt->count()) sources.front().images = a.images;
  if (a.labels_opt->count()) sources.front().labels = a.labels;
  for (const auto& s : sources) {
    inputs.push_back({"--images", s.images});
    inputs.push_back({"--labels", s.labels});
  }
  return std::nullopt;
}

// --patch, --count, --mask and --seed as numbers (--count all: kAllImages), after the checks
// that tie --mask and --labels to their task; an exit code when one is refused.
std::optional<int> fashion_mnist_integers(const ImportArgs& a, std::uint64_t (&value)[4]) {
  if (a.task == "inpaint" && a.mask_opt->count() == 0) {
    std::cerr << "verify import: --task inpaint needs --mask K (the number of patches removed per image)\n";
    return kBadInput;
  }
  if (a.task == "inpaint" && a.labels_opt->count() != 0) {
    std::cerr << "verify import: --labels applies to --task classify only\n";
    return kBadInput;
  }
  if (a.task == "classify" && a.mask_opt->count() != 0) {
    std::cerr << "verify import: --mask applies to --task inpaint only\n";
    return kBadInput;
  }
  const std::pair<const char*, const std::string*> integers[] = {
      {"--patch", &a.patch_text}, {"--count", &a.count_text}, {"--mask", &a.mask_text}, {"--seed", &a.seed_text}};
  for (std::size_t k = 0; k < 4; ++k) {
    if (k == 1 && a.count_text == "all") {
      value[k] = kAllImages;
      continue;
    }
    const auto v = unsigned_option_value(*integers[k].second);
    if (!v) {
      std::cerr << "verify import: " << integers[k].first << " " << quote_value(*integers[k].second)
                << ": expected a non-negative integer (0 to 18446744073709551615)" << (k == 1 ? " or all" : "")
                << "\n";
      return kBadInput;
    }
    value[k] = *v;
  }
  return std::nullopt;
}

// Reads, converts and writes the dataset; the exit code.
int import_and_write(ImportArgs& a) {
  if (a.output.empty()) throw InputError("-o was given an empty file name (an unset variable?); give a path");
  std::vector<NamedPath> inputs;
  std::vector<IdxSource> sources;
  if (a.fm->parsed()) {
    if (auto code = fashion_mnist_sources(a, sources, inputs)) return *code;
  } else {
    for (const auto& [role, path] : {std::pair{"--inputs", &a.inputs_path}, std::pair{"--lengths", &a.lengths},
                                      std::pair{"--outputs", &a.outputs},
                                      std::pair{"--output-lengths", &a.output_lengths}})
      if (!path->empty()) inputs.push_back({role, *path});
  }
  refuse_outputs_onto_inputs({{"-o", a.output}}, inputs);
  Dataset data;
  if (a.fm->parsed()) {
    std::uint64_t value[4];
    if (auto code = fashion_mnist_integers(a, value)) return *code;
    if (a.task == "inpaint")
      for (auto& s : sources) s.labels.clear();
    data = import_fashion_mnist(sources, a.split, value[0], value[1], a.task, value[2], value[3]);
  } else {
    data = import_npy(a.inputs_path, a.lengths, a.outputs, a.output_lengths);
  }
  write_dataset_json(data, a.output);
  std::size_t n_max = 0;
  for (const auto& p : data.pairs) n_max = std::max(n_max, p.input.size());
  std::cout << "wrote " << a.output << ": \"" << data.name << "\", N = " << data.pairs.size()
            << ", d = " << data.dimension << ", max n = " << n_max << ", sum m = " << data.sum_m() << "\n";
  for (const auto& note : data.notes)
    if (note.rfind("images (0-based", 0) != 0) std::cout << "  note: " << note << "\n";
  return 0;
}

}  // namespace

int run_import(int argc, char** argv) {
  CLI::App app{"verify import: convert external data into a dataset JSON file for `verify`.\n"
               "Exit codes: 0 written, 2 bad input or usage, 3 out of memory.",
               "verify import"};
  app.require_subcommand(1);
  ImportArgs args;
  add_fashion_mnist_options(app, args);
  add_npy_options(app, args);
  if (auto done = parse_args(app, argc, argv)) return *done;

  try {
    return import_and_write(args);
  } catch (const InputError& e) {
    std::cerr << "verify import: bad input: " << e.what() << "\n";
    return kBadInput;
  } catch (...) {
    return resource_failure_exit(std::cerr, "verify import", "Import fewer or smaller sequences.");
  }
}

}  // namespace seqi
