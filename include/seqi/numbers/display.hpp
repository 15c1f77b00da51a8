// Doubles shown to a reader (never a decision): three significant digits, as printf "%.3g".
#pragma once
#include <cstdio>
#include <string>

namespace seqi {

inline std::string three_digits(double x) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3g", x);
  return buf;
}

}  // namespace seqi
