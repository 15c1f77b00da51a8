// The Protocol Buffers wire format, encoding side only: a message is the concatenation of its
// fields, each a tag (field number << 3 | wire type) then a varint (type 0) or a length-
// prefixed byte string (type 2: strings, bytes, nested messages, packed repeated scalars).
#pragma once
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace seqi {

class ProtoMessage {
 public:
  // int32, int64, uint64, enum and bool fields (negative values as 10-byte two's complement).
  ProtoMessage& integer(int field, std::int64_t value);
  // string and bytes fields.
  ProtoMessage& bytes(int field, std::string_view value);
  ProtoMessage& message(int field, const ProtoMessage& value) { return bytes(field, value.encoded()); }
  // A packed repeated int64 field (one length-delimited run of varints).
  ProtoMessage& packed_integers(int field, const std::vector<std::int64_t>& values);

  const std::string& encoded() const { return out_; }

 private:
  void tag(int field, int wire_type);
  void varint(std::uint64_t v);
  std::string out_;
};

// The varint encoding of v: 7 bits per byte, low first, high bit set on all but the last.
std::string varint_bytes(std::uint64_t v);

}  // namespace seqi
