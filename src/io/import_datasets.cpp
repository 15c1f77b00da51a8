#include "seqi/io/import_datasets.hpp"

#include <algorithm>
#include <array>
#include <filesystem>
#include <limits>
#include <numeric>
#include <optional>
#include <unordered_map>

#include "seqi/core/rng.hpp"
#include "seqi/io/hypotheses.hpp"
#include "seqi/io/idx.hpp"
#include "seqi/io/npy.hpp"
#include "seqi/core/input_error.hpp"
#include "seqi/io/read_file.hpp"

namespace seqi {
namespace {

// Uniform integer in [0, bound) without modulo bias; bound >= 1.
std::uint64_t uniform_below(Rng& rng, std::uint64_t bound) {
  const std::uint64_t limit = std::numeric_limits<std::uint64_t>::max() -
                              std::numeric_limits<std::uint64_t>::max() % bound;
  std::uint64_t x;
  do x = rng.next();
  while (x >= limit);
  return x % bound;
}

// Per-image generator for the inpainting mask: depends only on (seed, image).
Rng image_rng(std::uint64_t seed, std::uint64_t image) {
  Rng mix(seed ^ 0x6A09E667F3BCC909ull);
  Rng r(mix.next() ^ (image * 0x9E3779B97F4A7C15ull + 0x632BE59BD9B4E019ull));
  r.next();
  return r;
}

std::string list_indices(const std::vector<std::size_t>& v) {
  std::string s;
  for (std::size_t k = 0; k < v.size(); ++k) s += (k ? ", " : "") + std::to_string(v[k]);
  return s;
}

struct PatchGrid {
  std::size_t p, rows, cols, grid_rows, grid_cols;
  std::size_t patches() const { return grid_rows * grid_cols; }
  int dimension() const { return static_cast<int>(p * p + 2); }
};

std::string joined_paths(const std::vector<IdxSource>& sources, std::string IdxSource::*file) {
  std::string s;
  for (std::size_t k = 0; k < sources.size(); ++k) s += (k ? " + " : "") + sources[k].*file;
  return s;
}

// The images of every source, in order, as one [count, rows, cols] array (rows and cols equal
// across sources); sizes[k] = the image count of source k.
IdxArray read_images(const std::vector<IdxSource>& sources, std::vector<std::size_t>& sizes) {
  IdxArray all;
  for (const auto& source : sources) {
    IdxArray a = read_idx(source.images);
    if (a.dims.size() != 3)
      throw InputError(source.images + ": expected an IDX image file of rank 3 [count, rows, cols] (magic "
                       "0x00000803), got rank " + std::to_string(a.dims.size()) + ". Did you swap --images and --labels?");
    if (all.dims.empty()) {
      all.dims = {0, a.dims[1], a.dims[2]};
    } else if (a.dims[1] != all.dims[1] || a.dims[2] != all.dims[2]) {
      throw InputError(source.images + ": images of " + std::to_string(a.dims[1]) + " x " + std::to_string(a.dims[2]) +
                       " pixels, but " + sources.front().images + " has " + std::to_string(all.dims[1]) + " x " +
                       std::to_string(all.dims[2]) + "; the files of one import must have the same image size.");
    }
    all.dims[0] += a.dims[0];
    sizes.push_back(a.dims[0]);
    all.data.insert(all.data.end(), a.data.begin(), a.data.end());
  }
  return all;
}

// The labels of every source, in order; source k must have sizes[k] labels.
std::vector<std::uint8_t> read_labels(const std::vector<IdxSource>& sources, const std::vector<std::size_t>& sizes) {
  std::vector<std::uint8_t> all;
  for (std::size_t k = 0; k < sources.size(); ++k) {
    const std::string& path = sources[k].labels;
    const IdxArray labels = read_idx(path);
    if (labels.dims.size() != 1)
      throw InputError(path + ": expected an IDX label file of rank 1 [count] (magic 0x00000801), got rank " +
                       std::to_string(labels.dims.size()) + ". Did you swap --images and --labels?");
    if (labels.dims[0] != sizes[k])
      throw InputError(path + ": has " + std::to_string(labels.dims[0]) + " labels but " + sources[k].images +
                       " has " + std::to_string(sizes[k]) + " images; give the label file of the same set.");
    all.insert(all.end(), labels.data.begin(), labels.data.end());
  }
  return all;
}

}  // namespace

Dataset import_fashion_mnist(const std::string& images_idx, const std::string& labels_idx, std::size_t patch,
                             std::size_t count, const std::string& task, std::size_t mask, std::uint64_t seed) {
  return import_fashion_mnist({{images_idx, labels_idx}}, "train", patch, count, task, mask, seed);
}

namespace {

// The options of a Fashion-MNIST import, checked before any file is read.
void check_import_options(const std::string& task, std::size_t patch, std::size_t count, std::size_t mask) {
  const bool classify = task == "classify";
  if (!classify && task != "inpaint")
    throw InputError("--task " + task + ": unknown task; use \"classify\" or \"inpaint\".");
  if (classify && mask != 0)
    throw InputError("--mask " + std::to_string(mask) + ": the mask applies to --task inpaint only.");
  if (!classify && mask == 0)
    throw InputError("--task inpaint needs --mask K >= 1 (the number of patches removed from each image).");
  if (count == 0) throw InputError("--count 0: import at least one image.");
  if (patch == 0) throw InputError("--patch 0: the patch side must be at least 1.");
}

// The grid of patches of side `patch` over images of the given size; mask: patches removed
// per image (0 to classify), at most half of them (H5).
PatchGrid patch_grid(std::size_t patch, std::size_t rows, std::size_t cols, std::size_t mask) {
  PatchGrid g{patch, rows, cols, 0, 0};
  if (g.rows % patch != 0 || g.cols % patch != 0)
    throw InputError("--patch " + std::to_string(patch) + ": the patch side must divide the image size " +
                     std::to_string(g.rows) + " x " + std::to_string(g.cols) +
                     (g.rows == 28 && g.cols == 28 ? " (for 28: 1, 2, 4, 7, 14 or 28)." : "."));
  g.grid_rows = g.rows / patch;
  g.grid_cols = g.cols / patch;
  if (mask != 0 && 2 * mask > g.patches())
    throw InputError("--mask " + std::to_string(mask) + ": an image has " + std::to_string(g.patches()) +
                     " patches of side " + std::to_string(patch) + "; the output (" + std::to_string(mask) +
                     " masked patches) may not outnumber the remaining input patches (H5: m <= n), so choose "
                     "--mask <= " + std::to_string(g.patches() / 2) + ".");
  return g;
}

// The tokens of the images' patches: pixels k/255 row-major, then the patch's row and column.
class PatchTokens {
 public:
  PatchTokens(const IdxArray& images, const PatchGrid& g) : images_(images), g_(g) {
    for (int k = 0; k < 256; ++k) pixel_[static_cast<std::size_t>(k)] = Rational(k, 255);
  }

  // Token of patch q (row-major index over the grid) of image i; its bytes are appended to key.
  Point operator()(std::size_t i, std::size_t q, std::string& key) const {
    const std::size_t patch = g_.p, pp = patch * patch;
    const std::size_t r = q / g_.grid_cols, c = q % g_.grid_cols;
    Point t(g_.dimension());
    const std::uint8_t* img = images_.data.data() + i * g_.rows * g_.cols;
    key += static_cast<char>(q & 0xFF), key += static_cast<char>((q >> 8) & 0xFF);
    key += static_cast<char>((q >> 16) & 0xFF);
    for (std::size_t y = 0; y < patch; ++y)
      for (std::size_t x = 0; x < patch; ++x) {
        const std::uint8_t byte = img[(r * patch + y) * g_.cols + c * patch + x];
        t[static_cast<Eigen::Index>(y * patch + x)] = pixel_[byte];
        key += static_cast<char>(byte);
      }
    t[static_cast<Eigen::Index>(pp)] = Rational(static_cast<long>(r));
    t[static_cast<Eigen::Index>(pp + 1)] = Rational(static_cast<long>(c));
    return t;
  }

 private:
  const IdxArray& images_;
  const PatchGrid& g_;
  std::array<Rational, 256> pixel_;
};

// The pair of image i: classify (labels given): every patch in, label + 1 in coordinate 1 out;
// inpaint: `mask` patches drawn from the image's own seed out, the rest in. in_key and out_key
// receive the bytes that identify the input and output sets.
SequencePair image_pair(const PatchTokens& token, const PatchGrid& g, std::size_t i, const std::vector<std::uint8_t>* labels,
                        std::size_t mask, std::uint64_t seed, std::string& in_key, std::string& out_key) {
  std::vector<bool> masked(g.patches(), false);
  if (!labels) {
    Rng r = image_rng(seed, i);
    std::vector<std::size_t> positions(g.patches());
    std::iota(positions.begin(), positions.end(), std::size_t{0});
    for (std::size_t s = 0; s < mask; ++s) {
      std::swap(positions[s], positions[s + uniform_below(r, positions.size() - s)]);
      masked[positions[s]] = true;
    }
  }
  SequencePair pair;
  for (std::size_t q = 0; q < g.patches(); ++q) {
    if (masked[q])
      pair.output.push_back(token(i, q, out_key));
    else
      pair.input.push_back(token(i, q, in_key));
  }
  pair.input.shrink_to_fit();
  if (labels) {
    const std::uint8_t label = (*labels)[i];
    Point e = Point::Constant(g.dimension(), Rational(0));
    e[0] = Rational(static_cast<long>(label) + 1);
    pair.output.push_back(e);
    out_key = std::string(1, static_cast<char>(label));
  }
  pair.output.shrink_to_fit();
  return pair;
}

// The images drawn and the duplicates skipped on the way (H3).
struct DrawnImages {
  std::vector<std::size_t> used;  // image index of each pair
  std::vector<std::string> skip_notes;
  std::size_t repeats = 0, conflicts = 0;
};

// Draws images in a seeded order (lazy Fisher-Yates) until `count` pairs with distinct input
// sets are in data (or the images run out); a later image with the input set of an earlier one
// is skipped, as a repeat (same output) or a conflict.
DrawnImages draw_images(Dataset& data, const PatchTokens& token, const PatchGrid& g, std::size_t total,
                        std::size_t count, const std::vector<std::uint8_t>* labels, std::size_t mask,
                        std::uint64_t seed) {
  struct Taken {
    std::size_t pair, image;
    std::string output_key;
  };
  std::unordered_map<std::string, Taken> by_input;  // input-set key -> first image with it
  DrawnImages drawn;
  std::vector<std::uint32_t> order(total);  // order[0..k) are the images drawn so far
  std::iota(order.begin(), order.end(), std::uint32_t{0});
  Rng rng(seed);
  for (std::size_t k = 0; k < total && data.pairs.size() < count; ++k) {
    std::swap(order[k], order[k + uniform_below(rng, total - k)]);
    const std::size_t i = order[k];
    std::string in_key, out_key;
    SequencePair pair = image_pair(token, g, i, labels, mask, seed, in_key, out_key);
    auto [it, inserted] = by_input.try_emplace(std::move(in_key), Taken{data.pairs.size(), i, out_key});
    if (!inserted) {
      const Taken& first = it->second;
      const bool same = first.output_key == out_key;
      (same ? drawn.repeats : drawn.conflicts)++;
      if (drawn.skip_notes.size() < 20) {
        std::string what = same ? "and the same output: a repeat, skipped (H3)"
                                : labels ? "but label " + std::to_string((*labels)[i]) + " instead of " +
                                               std::to_string((*labels)[first.image]) +
                                               ": conflicting duplicate, skipped (H3)"
                                         : "but different masked patches: conflicting duplicate, skipped (H3)";
        drawn.skip_notes.push_back("image " + std::to_string(i) + " has the same input set as image " +
                                   std::to_string(first.image) + " (pair " + std::to_string(first.pair + 1) + ") " +
                                   what + "; the next image in the seeded order was drawn instead");
      }
      continue;
    }
    drawn.used.push_back(i);
    data.pairs.push_back(std::move(pair));
  }
  return drawn;
}

}  // namespace

Dataset import_fashion_mnist(const std::vector<IdxSource>& sources, const std::string& split, std::size_t patch,
                             std::size_t count, const std::string& task, std::size_t mask, std::uint64_t seed) {
  check_import_options(task, patch, count, mask);
  const bool classify = task == "classify";
  if (sources.empty()) throw InputError("no IDX image file to import from.");
  const std::string images_idx = joined_paths(sources, &IdxSource::images);
  const std::string labels_idx = joined_paths(sources, &IdxSource::labels);
  std::vector<std::size_t> sizes;
  const IdxArray images = read_images(sources, sizes);
  const std::size_t total = images.dims[0];
  const PatchGrid g = patch_grid(patch, images.dims[1], images.dims[2], mask);
  const bool all_images = count == kAllImages;
  if (all_images) count = total;
  if (count > total)
    throw InputError(images_idx + ": --count " + std::to_string(count) + " exceeds the " + std::to_string(total) +
                     " images in the file.");

  std::vector<std::uint8_t> labels;
  if (classify) labels = read_labels(sources, sizes);
  const int d = g.dimension();
  const std::size_t pp = patch * patch;

  Dataset data;
  data.dimension = d;
  data.name = "fashion-mnist task=" + task + " patch=" + std::to_string(patch) +
              (classify ? std::string() : " mask=" + std::to_string(mask)) +
              " count=" + (all_images ? std::string("all") : std::to_string(count)) +
              (split == "train" ? std::string() : " split=" + split) + " seed=" + std::to_string(seed);
  const PatchTokens token(images, g);
  const DrawnImages drawn = draw_images(data, token, g, total, count, classify ? &labels : nullptr, mask, seed);

  const std::string grid = std::to_string(g.grid_rows) + " x " + std::to_string(g.grid_cols);
  data.notes.push_back("imported from " + images_idx + (classify ? " and " + labels_idx : std::string()) +
                       " (" + std::to_string(total) + " images of " + std::to_string(g.rows) + " x " +
                       std::to_string(g.cols) + ")");
  data.notes.push_back("token = the " + std::to_string(pp) + " pixels k/255 of a " + std::to_string(patch) + " x " +
                       std::to_string(patch) + " patch (row-major), then the patch row and column (0-based, grid " +
                       grid + "); d = " + std::to_string(d));
  data.notes.push_back(classify ? "output = one token: label + 1 in coordinate 1, zeros elsewhere"
                                : "output = the " + std::to_string(mask) +
                                      " masked patch tokens (removed from the input), chosen per image from the seed");
  const std::size_t skipped = drawn.repeats + drawn.conflicts;
  data.notes.insert(data.notes.end(), drawn.skip_notes.begin(), drawn.skip_notes.end());
  if (skipped > drawn.skip_notes.size())
    data.notes.push_back(std::to_string(skipped - drawn.skip_notes.size()) + " more duplicate images skipped");
  if (skipped)
    data.notes.push_back("skipped " + std::to_string(drawn.repeats) + " repeated and " +
                         std::to_string(drawn.conflicts) + " conflicting duplicate images (H3)");
  if (data.pairs.size() < count)
    data.notes.push_back("only " + std::to_string(data.pairs.size()) + " images with distinct input sets in " +
                         images_idx + "; fewer pairs than --count " +
                         (all_images ? "all (" + std::to_string(count) + " images)" : std::to_string(count)));
  std::string files;
  for (std::size_t k = 0; k < sources.size(); ++k)
    files += (k ? " then " : "") + std::filesystem::path(sources[k].images).filename().string() +
             (sources.size() > 1 ? " (" + std::to_string(sizes[k]) + ")" : std::string());
  data.notes.push_back("images (0-based indices into " + files + ", in pair order): " + list_indices(drawn.used));
  check_hypotheses(data, images_idx);
  return data;
}

// ---------------------------------------------------------------- npy

namespace {

// The n_j of a lengths file (1-D, checked already): positive integers.
std::vector<std::size_t> read_lengths(const std::string& bytes, const std::string& path) {
  const NpyArray a = decode_npy(bytes, path);
  std::vector<std::size_t> out(a.values.size());
  for (std::size_t j = 0; j < a.values.size(); ++j) {
    const Rational& v = a.values[j];
    if (denominator(v) != 1 || v < 1 || v > Rational(std::numeric_limits<long>::max()))
      throw InputError(path + ": length " + std::to_string(j) + " is " + to_string(v) +
                       "; every sequence length must be a positive integer.");
    out[j] = static_cast<std::size_t>(numerator(v).convert_to<long>());
  }
  return out;
}

// Number of sequences N and dimension d announced by the header of a tokens array: [N, n, d]
// without a lengths file, else [total, d] with N = the lengths array's size. Checks ranks.
std::pair<std::size_t, std::size_t> sequences_and_dimension(const NpyHeader& a, const std::string& path,
                                                            const std::optional<NpyHeader>& lengths,
                                                            const std::string& lengths_path, const char* flag) {
  if (!lengths) {
    if (a.shape.size() != 3)
      throw InputError(path + ": without " + flag + " the array must be 3-D [N, n, d], got shape " +
                       npy_shape_text(a.shape) + ". For ragged sequences give a 2-D [total, d] array and " + flag +
                       " FILE.npy.");
    return {a.shape[0], a.shape[2]};
  }
  if (a.shape.size() != 2)
    throw InputError(path + ": with " + flag + " the array must be 2-D [total_tokens, d], got shape " +
                     npy_shape_text(a.shape) + ".");
  if (lengths->shape.size() != 1)
    throw InputError(lengths_path + ": a lengths array must be 1-D [N], got shape " + npy_shape_text(lengths->shape) + ".");
  return {lengths->shape[0], a.shape[1]};
}

// Splits a [T, d] array by lengths, or a [N, n, d] array evenly (shapes checked already).
// Seq: Sequence or TokenSequence.
template <class Seq>
std::vector<Seq> split(const NpyArray& a, const std::string& path, const std::string& lengths_bytes,
                            const std::string& lengths_path, std::size_t d) {
  std::vector<std::size_t> lengths;
  if (lengths_path.empty()) {
    lengths.assign(a.shape[0], a.shape[1]);
  } else {
    lengths = read_lengths(lengths_bytes, lengths_path);
    std::size_t sum = 0;
    for (std::size_t n : lengths) sum += n;
    if (sum != a.shape[0])
      throw InputError(lengths_path + ": the lengths sum to " + std::to_string(sum) + " but " + path + " has " +
                       std::to_string(a.shape[0]) + " rows (tokens); they must be equal.");
  }
  std::vector<Seq> seqs(lengths.size());
  std::size_t row = 0;
  for (std::size_t j = 0; j < lengths.size(); ++j)
    for (std::size_t t = 0; t < lengths[j]; ++t, ++row) {
      Point p(static_cast<Eigen::Index>(d));
      for (std::size_t k = 0; k < d; ++k) p[static_cast<Eigen::Index>(k)] = a.values[row * d + k];
      seqs[j].push_back(std::move(p));
    }
  return seqs;
}

std::string read_npy_bytes(const std::string& path) {
  return path.empty() ? std::string() : read_npy_file(path);
}

}  // namespace

Dataset import_npy(const std::string& inputs, const std::string& lengths, const std::string& outputs,
                   const std::string& output_lengths) {
  // Every file is read once; the headers are checked against each other before any value
  // is decoded (a mismatch costs no memory beyond the files' bytes).
  const std::string x_bytes = read_npy_bytes(inputs), y_bytes = read_npy_bytes(outputs);
  const std::string xl_bytes = read_npy_bytes(lengths), yl_bytes = read_npy_bytes(output_lengths);
  const auto header_of = [](const std::string& bytes, const std::string& path) {
    return path.empty() ? std::nullopt : std::optional<NpyHeader>(npy_header(bytes, path));
  };
  const auto [n_in, d_in] = sequences_and_dimension(npy_header(x_bytes, inputs), inputs, header_of(xl_bytes, lengths),
                                                    lengths, "--lengths");
  const auto [n_out, d_out] = sequences_and_dimension(npy_header(y_bytes, outputs), outputs,
                                                      header_of(yl_bytes, output_lengths), output_lengths,
                                                      "--output-lengths");
  if (d_in < 2)
    throw InputError(inputs + ": tokens have d = " + std::to_string(d_in) +
                     " coordinates, but the theorem needs d >= 2 (H4). Append a zero column.");
  if (d_in != d_out)
    throw InputError(outputs + ": output tokens have d = " + std::to_string(d_out) + " coordinates but the inputs in " +
                     inputs + " have d = " + std::to_string(d_in) + "; both must have the same dimension.");
  if (n_in != n_out)
    throw InputError(outputs + ": " + std::to_string(n_out) + " output sequences but " + inputs + " has " +
                     std::to_string(n_in) + " input sequences; give one output per input.");
  if (d_in > static_cast<std::size_t>(std::numeric_limits<int>::max()))
    throw InputError(inputs + ": the dimension " + std::to_string(d_in) + " is too large.");
  std::vector<TokenSequence> xs = split<TokenSequence>(decode_npy(x_bytes, inputs), inputs, xl_bytes, lengths, d_in);
  std::vector<Sequence> ys = split<Sequence>(decode_npy(y_bytes, outputs), outputs, yl_bytes, output_lengths, d_out);
  Dataset data;
  data.name = std::filesystem::path(inputs).stem().string();
  data.dimension = static_cast<int>(d_in);
  data.pairs.resize(xs.size());
  for (std::size_t j = 0; j < xs.size(); ++j) {
    data.pairs[j].input = std::move(xs[j]);
    data.pairs[j].output = TokenSequence(ys[j]);
  }
  data.notes.push_back("imported from " + inputs + (lengths.empty() ? std::string() : " (lengths " + lengths + ")") +
                       " and " + outputs +
                       (output_lengths.empty() ? std::string() : " (lengths " + output_lengths + ")"));
  check_hypotheses(data, inputs);
  return data;
}

}  // namespace seqi
