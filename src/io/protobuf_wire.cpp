#include "seqi/io/protobuf_wire.hpp"

namespace seqi {

std::string varint_bytes(std::uint64_t v) {
  std::string out;
  while (v >= 0x80) {
    out.push_back(static_cast<char>((v & 0x7f) | 0x80));
    v >>= 7;
  }
  out.push_back(static_cast<char>(v));
  return out;
}

void ProtoMessage::varint(std::uint64_t v) { out_ += varint_bytes(v); }

void ProtoMessage::tag(int field, int wire_type) {
  varint((static_cast<std::uint64_t>(field) << 3) | static_cast<std::uint64_t>(wire_type));
}

ProtoMessage& ProtoMessage::integer(int field, std::int64_t value) {
  tag(field, 0);
  varint(static_cast<std::uint64_t>(value));
  return *this;
}

ProtoMessage& ProtoMessage::bytes(int field, std::string_view value) {
  tag(field, 2);
  varint(value.size());
  out_.append(value);
  return *this;
}

ProtoMessage& ProtoMessage::packed_integers(int field, const std::vector<std::int64_t>& values) {
  std::string run;
  for (const std::int64_t v : values) run += varint_bytes(static_cast<std::uint64_t>(v));
  return bytes(field, run);
}

}  // namespace seqi
