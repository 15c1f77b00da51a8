// A construction (the exact model and its record) as bytes, so that a construction built by
// one process of verify-mpi reaches the others unchanged.
#pragma once
#include <string>
#include <string_view>

#include "seqi/construction/construction.hpp"

namespace seqi {

std::string construction_to_bytes(const Construction& built);
// Throws ByteCodecError when the bytes are not exactly one encoded construction.
Construction construction_from_bytes(std::string_view bytes);

}  // namespace seqi
