// `verify import fashion-mnist|npy ... -o FILE.json`: writes a dataset file for `verify`.
#include <CLI/CLI.hpp>
#include <iostream>

#include "parse_args.hpp"
#include "seqi/cli/run.hpp"
#include "seqi/io/dataset_writer.hpp"
#include "seqi/io/import_datasets.hpp"
#include "seqi/core/input_error.hpp"

namespace seqi {

int run_import(int argc, char** argv) {
  CLI::App app{"verify import: convert external data into a dataset JSON file for `verify`.\n"
               "Exit codes: 0 written, 2 bad input or usage.",
               "verify import"};
  app.require_subcommand(1);

  std::string output;
  auto* fm = app.add_subcommand(
      "fashion-mnist",
      "Fashion-MNIST images as sequences of p x p patch tokens (pixels k/255, then the patch row and "
      "column); task classify (output: label embedding) or inpaint (output: the masked patches)");
  std::size_t patch = 0, count = 0, mask = 0;
  std::string task, images = kFashionMnistTrainImages, labels = kFashionMnistTrainLabels;
  std::uint64_t seed = 1;
  fm->add_option("--patch", patch, "patch side p (must divide 28: 1, 2, 4, 7, 14, 28)")->required();
  fm->add_option("--count", count, "number of images drawn (seeded, without replacement)")->required();
  fm->add_option("--task", task, "classify or inpaint")->required()->check(CLI::IsMember({"classify", "inpaint"}));
  auto* mask_opt = fm->add_option("--mask", mask, "inpaint: number of patches removed from each image");
  fm->add_option("--seed", seed, "seed of the image selection and of the masks (recorded in the name)")
      ->capture_default_str();
  fm->add_option("--images", images, "IDX image file (.gz or plain)")->capture_default_str();
  fm->add_option("--labels", labels, "IDX label file (.gz or plain; classify only)")->capture_default_str();
  fm->add_option("-o,--output", output, "dataset JSON file to write")->required();

  auto* np = app.add_subcommand("npy", "NumPy .npy arrays: inputs [total, d] with lengths [N] (or [N, n, d]), "
                                       "outputs [total_out, d] with output lengths [N] (or [N, m, d])");
  std::string inputs, lengths, outputs, output_lengths;
  np->add_option("--inputs", inputs, "input tokens X.npy")->required();
  np->add_option("--lengths", lengths, "1-D integer n_j of each input sequence (X is then [total, d])");
  np->add_option("--outputs", outputs, "output tokens Y.npy")->required();
  np->add_option("--output-lengths", output_lengths, "1-D integer m_j of each output sequence (Y is then [total, d])");
  np->add_option("-o,--output", output, "dataset JSON file to write")->required();

  if (auto done = parse_args(app, argc, argv)) return *done;

  try {
    Dataset data;
    if (fm->parsed()) {
      if (task == "inpaint" && mask_opt->count() == 0) {
        std::cerr << "verify import: --task inpaint needs --mask K (the number of patches removed per image)\n";
        return kBadInput;
      }
      if (task == "classify" && mask_opt->count() != 0) {
        std::cerr << "verify import: --mask applies to --task inpaint only\n";
        return kBadInput;
      }
      data = import_fashion_mnist(images, labels, patch, count, task, mask, seed);
    } else {
      data = import_npy(inputs, lengths, outputs, output_lengths);
    }
    write_dataset_json(data, output);
    std::size_t n_max = 0;
    for (const auto& p : data.pairs) n_max = std::max(n_max, p.input.size());
    std::cout << "wrote " << output << ": \"" << data.name << "\", N = " << data.pairs.size()
              << ", d = " << data.dimension << ", max n = " << n_max << ", sum m = " << data.sum_m() << "\n";
    for (const auto& note : data.notes)
      if (note.rfind("images (0-based", 0) != 0) std::cout << "  note: " << note << "\n";
    return 0;
  } catch (const InputError& e) {
    std::cerr << "verify import: bad input: " << e.what() << "\n";
    return kBadInput;
  } catch (const std::bad_alloc&) {
    std::cerr << "verify import: out of memory; import fewer or smaller sequences\n";
    return kBadInput;
  }
}

}  // namespace seqi
