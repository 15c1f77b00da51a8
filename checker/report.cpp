// What the checker prints: one line per claim confirmed or refuted, and plain notes on what it
// did not check.
#include <iostream>

#include "check.hpp"

namespace check {

void Report::confirmed(const std::string& claim) {
  ++confirmed_;
  std::cout << "confirmed: " << claim << "\n";
}

void Report::refuted(const std::string& claim, const std::string& why) {
  ++refuted_;
  std::cout << "REFUTED: " << claim << ": " << why << "\n";
}

std::string approx(const Q& x) {
  const mpf_class f(x, 64);
  char buf[64];
  gmp_snprintf(buf, sizeof buf, "~%.6Fg", f.get_mpf_t());
  return buf;
}

void Report::note(const std::string& text) { std::cout << "note: " << text << "\n"; }

}  // namespace check
