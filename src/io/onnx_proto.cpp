#include "seqi/io/onnx_proto.hpp"

#include "seqi/io/protobuf_wire.hpp"

namespace seqi {
namespace {

// Field numbers of onnx.proto (ONNX IR specification).
namespace model_field { constexpr int ir_version = 1, producer_name = 2, producer_version = 3, doc_string = 6,
                                      graph = 7, opset_import = 8, metadata_props = 14; }
namespace opset_field { constexpr int domain = 1, version = 2; }
namespace entry_field { constexpr int key = 1, value = 2; }
namespace graph_field { constexpr int node = 1, name = 2, initializer = 5, doc_string = 10, input = 11, output = 12; }
namespace node_field { constexpr int input = 1, output = 2, name = 3, op_type = 4, attribute = 5; }
namespace attribute_field { constexpr int name = 1, i = 3, ints = 8, type = 20; }
namespace attribute_type { constexpr int int_value = 2, ints = 7; }
namespace tensor_field { constexpr int dims = 1, data_type = 2, name = 8, raw_data = 9; }
namespace value_info_field { constexpr int name = 1, type = 2; }
namespace type_field { constexpr int tensor_type = 1; }
namespace tensor_type_field { constexpr int elem_type = 1, shape = 2; }
namespace shape_field { constexpr int dim = 1; }
namespace dimension_field { constexpr int dim_value = 1, dim_param = 2; }

ProtoMessage tensor_message(const OnnxTensor& t) {
  ProtoMessage m;
  for (const std::int64_t d : t.dims) m.integer(tensor_field::dims, d);
  m.integer(tensor_field::data_type, static_cast<std::int64_t>(t.element));
  m.bytes(tensor_field::name, t.name);
  m.bytes(tensor_field::raw_data, t.raw_data);
  return m;
}

ProtoMessage attribute_message(const OnnxAttribute& a) {
  ProtoMessage m;
  m.bytes(attribute_field::name, a.name);
  if (a.list) {
    for (const std::int64_t v : a.ints) m.integer(attribute_field::ints, v);
    m.integer(attribute_field::type, attribute_type::ints);
  } else {
    m.integer(attribute_field::i, a.ints.empty() ? 0 : a.ints.front());
    m.integer(attribute_field::type, attribute_type::int_value);
  }
  return m;
}

ProtoMessage node_message(const OnnxNode& n) {
  ProtoMessage m;
  for (const auto& s : n.inputs) m.bytes(node_field::input, s);
  for (const auto& s : n.outputs) m.bytes(node_field::output, s);
  m.bytes(node_field::name, n.name);
  m.bytes(node_field::op_type, n.op_type);
  for (const auto& a : n.attributes) m.message(node_field::attribute, attribute_message(a));
  return m;
}

ProtoMessage value_info_message(const OnnxValueInfo& v) {
  ProtoMessage shape;
  for (const auto& d : v.dims) {
    ProtoMessage dim;
    if (const auto* size = std::get_if<std::int64_t>(&d))
      dim.integer(dimension_field::dim_value, *size);
    else
      dim.bytes(dimension_field::dim_param, std::get<std::string>(d));
    shape.message(shape_field::dim, dim);
  }
  ProtoMessage tensor_type;
  tensor_type.integer(tensor_type_field::elem_type, static_cast<std::int64_t>(v.element));
  tensor_type.message(tensor_type_field::shape, shape);
  ProtoMessage type;
  type.message(type_field::tensor_type, tensor_type);
  ProtoMessage m;
  m.bytes(value_info_field::name, v.name);
  m.message(value_info_field::type, type);
  return m;
}

ProtoMessage graph_message(const OnnxGraph& g) {
  ProtoMessage m;
  for (const auto& n : g.nodes) m.message(graph_field::node, node_message(n));
  m.bytes(graph_field::name, g.name);
  for (const auto& t : g.initializers) m.message(graph_field::initializer, tensor_message(t));
  if (!g.doc.empty()) m.bytes(graph_field::doc_string, g.doc);
  for (const auto& v : g.inputs) m.message(graph_field::input, value_info_message(v));
  for (const auto& v : g.outputs) m.message(graph_field::output, value_info_message(v));
  return m;
}

}  // namespace

std::string encode_onnx_model(const OnnxModel& model) {
  ProtoMessage opset;
  opset.bytes(opset_field::domain, "");
  opset.integer(opset_field::version, model.opset);
  ProtoMessage m;
  m.integer(model_field::ir_version, model.ir_version);
  m.bytes(model_field::producer_name, model.producer_name);
  m.bytes(model_field::producer_version, model.producer_version);
  if (!model.doc.empty()) m.bytes(model_field::doc_string, model.doc);
  m.message(model_field::graph, graph_message(model.graph));
  m.message(model_field::opset_import, opset);
  for (const auto& [key, value] : model.metadata) {
    ProtoMessage entry;
    entry.bytes(entry_field::key, key);
    entry.bytes(entry_field::value, value);
    m.message(model_field::metadata_props, entry);
  }
  return m.encoded();
}

}  // namespace seqi
