// `verify import fashion-mnist|npy ... -o FILE.json`: writes a dataset file for `verify`.
#include <CLI/CLI.hpp>
#include <iostream>
#include <new>
#include <stdexcept>
#include <system_error>

#include "parse_args.hpp"
#include "seqi/cli/run.hpp"
#include "seqi/cli/unsigned_option.hpp"
#include "seqi/io/dataset_writer.hpp"
#include "seqi/io/import_datasets.hpp"
#include "seqi/core/input_error.hpp"
#include "seqi/io/output_paths.hpp"
#include "seqi/io/quote_value.hpp"

namespace seqi {

int run_import(int argc, char** argv) {
  CLI::App app{"verify import: convert external data into a dataset JSON file for `verify`.\n"
               "Exit codes: 0 written, 2 bad input or usage, 3 out of memory.",
               "verify import"};
  app.require_subcommand(1);

  std::string output;
  auto* fm = app.add_subcommand(
      "fashion-mnist",
      "Fashion-MNIST images as sequences of p x p patch tokens (pixels k/255, then the patch row and "
      "column); task classify (output: label embedding) or inpaint (output: the masked patches)");
  // Integers are taken as text and checked by unsigned_option_value: "-7" is refused as typed.
  std::string patch_text, count_text, mask_text = "0", seed_text = "1";
  std::string task, split = "train", images, labels;
  fm->add_option("--patch", patch_text, "patch side p (must divide 28: 1, 2, 4, 7, 14, 28)")->required();
  fm->add_option("--count", count_text,
                 "number of images drawn (seeded, without replacement), or all (every image with a distinct input)")
      ->required();
  fm->add_option("--split", split,
                 "train (60,000 images), test (10,000) or all (train then test: test image k has index 60000 + k)")
      ->check(CLI::IsMember({"train", "test", "all"}))
      ->capture_default_str();
  fm->add_option("--task", task, "classify or inpaint")->required()->check(CLI::IsMember({"classify", "inpaint"}));
  auto* mask_opt = fm->add_option("--mask", mask_text, "inpaint: number of patches removed from each image");
  fm->add_option("--seed", seed_text, "seed of the image selection and of the masks (recorded in the name)")
      ->capture_default_str();
  auto* images_opt = fm->add_option("--images", images,
                                    "IDX image file (.gz or plain; default: the --split file of Debian's "
                                    "dataset-fashion-mnist in /usr/share/datasets/fashion-mnist)");
  auto* labels_opt = fm->add_option("--labels", labels, "IDX label file (.gz or plain; classify only)");
  fm->add_option("-o,--output", output, "dataset JSON file to write")->required();

  auto* np = app.add_subcommand("npy", "NumPy .npy arrays: inputs [total, d] with lengths [N] (or [N, n, d]), "
                                       "outputs [total_out, d] with output lengths [N] (or [N, m, d])");
  std::string inputs_path, lengths, outputs, output_lengths;
  np->add_option("--inputs", inputs_path, "input tokens X.npy")->required();
  np->add_option("--lengths", lengths, "1-D integer n_j of each input sequence (X is then [total, d])");
  np->add_option("--outputs", outputs, "output tokens Y.npy")->required();
  np->add_option("--output-lengths", output_lengths, "1-D integer m_j of each output sequence (Y is then [total, d])");
  np->add_option("-o,--output", output, "dataset JSON file to write")->required();

  if (auto done = parse_args(app, argc, argv)) return *done;

  try {
    if (output.empty()) throw InputError("-o was given an empty file name (an unset variable?); give a path");
    std::vector<NamedPath> inputs;
    std::vector<IdxSource> sources;
    if (fm->parsed()) {
      if (split == "all" && (images_opt->count() || labels_opt->count())) {
        std::cerr << "verify import: --images and --labels name one file each; with --split all the package's "
                     "train and test files are read (use --split train or test with your own files)\n";
        return kBadInput;
      }
      if (split != "test") sources.push_back({kFashionMnistTrainImages, kFashionMnistTrainLabels});
      if (split != "train") sources.push_back({kFashionMnistTestImages, kFashionMnistTestLabels});
      if (images_opt->count()) sources.front().images = images;
      if (labels_opt->count()) sources.front().labels = labels;
      for (const auto& s : sources) {
        inputs.push_back({"--images", s.images});
        inputs.push_back({"--labels", s.labels});
      }
    } else {
      for (const auto& [role, path] : {std::pair{"--inputs", &inputs_path}, std::pair{"--lengths", &lengths},
                                        std::pair{"--outputs", &outputs}, std::pair{"--output-lengths", &output_lengths}})
        if (!path->empty()) inputs.push_back({role, *path});
    }
    refuse_outputs_onto_inputs({{"-o", output}}, inputs);
    Dataset data;
    if (fm->parsed()) {
      if (task == "inpaint" && mask_opt->count() == 0) {
        std::cerr << "verify import: --task inpaint needs --mask K (the number of patches removed per image)\n";
        return kBadInput;
      }
      if (task == "inpaint" && labels_opt->count() != 0) {
        std::cerr << "verify import: --labels applies to --task classify only\n";
        return kBadInput;
      }
      if (task == "classify" && mask_opt->count() != 0) {
        std::cerr << "verify import: --mask applies to --task inpaint only\n";
        return kBadInput;
      }
      std::uint64_t value[4];
      const std::pair<const char*, const std::string*> integers[] = {
          {"--patch", &patch_text}, {"--count", &count_text}, {"--mask", &mask_text}, {"--seed", &seed_text}};
      for (std::size_t k = 0; k < 4; ++k) {
        if (k == 1 && count_text == "all") {
          value[k] = kAllImages;
          continue;
        }
        const auto v = unsigned_option_value(*integers[k].second);
        if (!v) {
          std::cerr << "verify import: " << integers[k].first << " " << quote_value(*integers[k].second)
                    << ": expected a non-negative integer (0 to 18446744073709551615)"
                    << (k == 1 ? " or all" : "") << "\n";
          return kBadInput;
        }
        value[k] = *v;
      }
      if (task == "inpaint")
        for (auto& s : sources) s.labels.clear();
      data = import_fashion_mnist(sources, split, value[0], value[1], task, value[2], value[3]);
    } else {
      data = import_npy(inputs_path, lengths, outputs, output_lengths);
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
    return kOutOfMemory;
  } catch (const std::system_error& e) {
    if (e.code() != std::errc::resource_unavailable_try_again) throw;
    std::cerr << "verify import: out of memory: could not start a thread (" << e.what()
              << "). Import fewer or smaller sequences.\n";
    return kOutOfMemory;
  } catch (const std::length_error& e) {
    std::cerr << "verify import: out of memory: a container would exceed its maximum size (" << e.what() << ")\n";
    return kOutOfMemory;
  }
}

}  // namespace seqi
