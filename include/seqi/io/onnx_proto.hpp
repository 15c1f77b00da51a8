// The ONNX messages an exported transformer needs (ModelProto, GraphProto, NodeProto,
// AttributeProto, TensorProto, ValueInfoProto, TypeProto, OperatorSetIdProto,
// StringStringEntryProto), encoded in the protobuf wire format with the field numbers of the
// public ONNX specification (onnx.proto). Plain records in, bytes out; no validation here.
#pragma once
#include <cstdint>
#include <string>
#include <utility>
#include <variant>
#include <vector>

namespace seqi {

// TensorProto.DataType values.
enum class OnnxElement : std::int32_t { float32 = 1, int64 = 7, boolean = 9, float64 = 11 };

struct OnnxTensor {
  std::string name;
  OnnxElement element = OnnxElement::float64;
  std::vector<std::int64_t> dims;  // empty: a scalar
  std::string raw_data;            // little-endian values in C order
};

// An attribute of type INT (one value) or INTS (a list).
struct OnnxAttribute {
  std::string name;
  std::vector<std::int64_t> ints;
  bool list = false;
};

struct OnnxNode {
  std::string op_type, name;
  std::vector<std::string> inputs, outputs;
  std::vector<OnnxAttribute> attributes;
};

// A tensor-typed graph input or output; a dimension is a fixed size or a symbolic name.
struct OnnxValueInfo {
  std::string name;
  OnnxElement element = OnnxElement::float64;
  std::vector<std::variant<std::int64_t, std::string>> dims;
};

struct OnnxGraph {
  std::string name, doc;
  std::vector<OnnxNode> nodes;
  std::vector<OnnxTensor> initializers;
  std::vector<OnnxValueInfo> inputs, outputs;
};

struct OnnxModel {
  std::int64_t ir_version = 8;
  std::int64_t opset = 13;  // of the default domain ""
  std::string producer_name, producer_version, doc;
  OnnxGraph graph;
  std::vector<std::pair<std::string, std::string>> metadata;  // metadata_props
};

// The serialized ModelProto.
std::string encode_onnx_model(const OnnxModel& model);

}  // namespace seqi
