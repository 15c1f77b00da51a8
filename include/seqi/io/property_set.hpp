// `verify --save-property DIR`: a benchmark in the layout of the VNN-COMP benchmarks, about the
// built transformer and its dataset:
//   DIR/instances.csv                  onnx/model_n{n}.onnx,vnnlib/seq{j}_{true,false}.vnnlib,timeout
//   DIR/onnx/model_n{n}.onnx           the float64 ONNX graph with X, Y fixed to [n, d] (model_onnx.hpp)
//   DIR/vnnlib/seq{j}_true.vnnlib      for X_j: every output token i within delta of its target
//   DIR/vnnlib/seq{j}_false.vnnlib     the same with one target coordinate moved beyond reach
//   DIR/vnnlib/seq{j}_false.counterexample   X_j and the exact output, as a verifier reports "sat"
//   DIR/manifest.json                  the expected answers, delta, the run's statements
// (j counts sequences from 1). Properties are written only when the exact certificate holds
// and the float64 statement is shown: delta is its bound (docs/vnnlib.md).
#pragma once
#include <cstdint>
#include <iosfwd>
#include <string>
#include <vector>

#include "seqi/core/dataset.hpp"
#include "seqi/io/model_safetensors.hpp"

namespace seqi {

// Refuses, before any work, a DIR that exists and is not an empty directory, whose parent is
// not an existing writable directory (when it does not exist yet), or that lies under /proc
// or /sys. Throws InputError naming DIR and what to do.
void check_property_dir(const std::string& dir);

// True when `path` names DIR itself or a file under it (weakly canonical paths).
bool path_under_dir(const std::string& path, const std::string& dir);

// Parses "1,4,6" (sequence numbers from 1, no repeats) into 0-based indices. Throws
// InputError naming --property-sequences and the offending entry.
std::vector<std::size_t> parse_property_sequences(const std::string& text);

// Throws InputError when an index is beyond the dataset's `count` sequences.
void check_property_sequences(const std::vector<std::size_t>& chosen, std::size_t count, const std::string& dataset);

struct PropertySetRequest {
  std::string dir;
  std::vector<std::size_t> sequences;  // 0-based; empty: every sequence
  unsigned timeout_seconds = 60;       // the third column of instances.csv
  std::string dataset_path;            // recorded in the manifest
};

// Writes the benchmark. target_of[j]: per output token of sequence j, the index of the target
// it equals exactly (the certificate's exact pass). Returns what a user should know when no
// property could be written (the certificate does not hold, the statement is not shown), else "".
std::string write_property_set(const PropertySetRequest& request, const Dataset& data,
                               const Transformer<Rational>& model, const ModelExportInfo& info,
                               const std::vector<std::vector<std::uint32_t>>& target_of);

}  // namespace seqi
