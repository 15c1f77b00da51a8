#include "seqi/model/transformer.hpp"

namespace seqi {

const char* phase_name(Phase p) {
  switch (p) {
    case Phase::separation: return "separation";
    case Phase::placement: return "placement";
    case Phase::interpolation: return "interpolation";
    case Phase::user: return "user";
  }
  return "?";
}

}  // namespace seqi
