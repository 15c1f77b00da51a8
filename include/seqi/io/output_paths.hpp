// Output paths checked against input paths before any work: no run may overwrite its own
// input (or write two outputs onto one file).
#pragma once
#include <string>
#include <vector>

namespace seqi {

// A path with what it is, for messages: {"--save-model", "M.json"}, {"the dataset", "d.json"}.
struct NamedPath {
  std::string role;
  std::string path;
};

// True when a and b name the same file: the same inode when both exist (hard links and
// symbolic links included), else the same weakly canonical path. Two existing non-regular
// files (devices such as /dev/stdout, FIFOs) never count as the same.
bool same_file(const std::string& a, const std::string& b);

// Throws InputError when an output names an input or another output.
void refuse_outputs_onto_inputs(const std::vector<NamedPath>& outputs, const std::vector<NamedPath>& inputs);

}  // namespace seqi
