// Importers that turn external data into datasets (seqi/core/dataset.hpp) satisfying H1-H5.
//
// Fashion-MNIST (IDX files, e.g. Debian's dataset-fashion-mnist):
//   * Each image (rows x cols bytes, 28 x 28 for Fashion-MNIST) is cut into non-overlapping
//     p x p patches; p must divide rows and cols (for 28: p in {1, 2, 4, 7, 14, 28}).
//   * One token per patch, of dimension d = p*p + 2:
//       (pixel_1, ..., pixel_{p*p}, r, c)
//     pixel values k/255 (k the byte) in row-major order within the patch, then the patch's
//     row index r and column index c (0-based small integers, 0 <= r < rows/p, 0 <= c < cols/p).
//     The position code makes the tokens of one image pairwise distinct (H1) even when several
//     patches have equal pixels (blank background patches in particular), and it keeps the
//     spatial layout, which a permutation-equivariant model would otherwise lose.
//   * task "classify": input = all (rows/p)(cols/p) patch tokens; output = one token, the
//     label embedding e(label) = (label + 1, 0, ..., 0) (label + 1 in coordinate 1).
//   * task "inpaint": `mask` patches of each image are chosen uniformly at random (seeded by
//     the seed and the image index, so an image is masked the same way whichever other images
//     are drawn); they are removed from the input and form the output, tokens with their
//     position code. Needs 1 <= mask and mask <= (number of patches) - mask (H5: m <= n).
//   * Images are drawn without replacement in a seeded random order (SplitMix64, the same on
//     every platform). A drawn image whose input set equals that of an image already taken
//     (H3) is skipped with a note: a repeat when its output is equal too, a conflict when it is
//     not (e.g. identical images with different labels); the next image in the random order is
//     drawn instead, so the dataset has `count` pairs unless the file runs out of distinct ones.
//   * Several IDX sources (e.g. --split all: the training set, then the test set) are read as
//     one set of images, indexed in source order (the test images of --split all are 60000
//     to 69999); count kAllImages takes every image with a distinct input set.
//   * The dataset name records the task, patch, mask, count (or "all"), the split (unless it is
//     the default, train) and seed; the notes record the source files, the token layout and
//     the indices of the images used.
//
// NumPy (.npy files, read exactly by read_npy):
//   * inputs: [total_tokens, d] with `lengths` a 1-D integer array [N] of the n_j (sequence j
//     is the next n_j rows), or [N, n, d] when `lengths` is empty (every n_j = n);
//   * outputs: [total_out, d] with `output_lengths` [N], or [N, m, d] when it is empty.
#pragma once
#include <cstddef>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "seqi/core/dataset.hpp"
#include "seqi/core/input_error.hpp"

namespace seqi {

// The IDX files of Debian's dataset-fashion-mnist package (training set).
inline constexpr const char* kFashionMnistTrainImages =
    "/usr/share/datasets/fashion-mnist/train-images-idx3-ubyte.gz";
inline constexpr const char* kFashionMnistTrainLabels =
    "/usr/share/datasets/fashion-mnist/train-labels-idx1-ubyte.gz";

// The test set of the same package.
inline constexpr const char* kFashionMnistTestImages = "/usr/share/datasets/fashion-mnist/t10k-images-idx3-ubyte.gz";
inline constexpr const char* kFashionMnistTestLabels = "/usr/share/datasets/fashion-mnist/t10k-labels-idx1-ubyte.gz";

// An IDX image file and its label file (labels unused, may be empty, for inpaint).
struct IdxSource {
  std::string images, labels;
};

// --count all.
inline constexpr std::size_t kAllImages = std::numeric_limits<std::size_t>::max();

// task: "classify" (mask must be 0; labels_idx is read) or "inpaint" (mask >= 1; labels_idx
// is not read and may be empty). Throws InputError naming the file or the argument at fault.
// The result satisfies check_hypotheses.
Dataset import_fashion_mnist(const std::string& images_idx, const std::string& labels_idx, std::size_t patch,
                             std::size_t count, const std::string& task, std::size_t mask, std::uint64_t seed);

// The images of every source, in order, as one set. `split` names the selection in the
// dataset name ("train" is left out: the name of the one-file import above).
Dataset import_fashion_mnist(const std::vector<IdxSource>& sources, const std::string& split, std::size_t patch,
                             std::size_t count, const std::string& task, std::size_t mask, std::uint64_t seed);

// Empty `lengths` / `output_lengths` select the 3-D layouts. Throws InputError naming the file
// and what is inconsistent (shapes, lengths, dimensions, H1-H5).
Dataset import_npy(const std::string& inputs, const std::string& lengths, const std::string& outputs,
                   const std::string& output_lengths);


}  // namespace seqi
