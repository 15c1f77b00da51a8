// Text that typesets literally in LaTeX (pdflatex, OT1 or T1): escapes \ { } $ & # ^ _ % ~ < > |
// and [ ]; control characters become spaces or [0xNN]; each valid UTF-8 character outside
// ASCII becomes [U+XXXX] and each invalid byte [0xNN], so no input can break the document.
#pragma once
#include <string>

namespace seqi {

std::string latex_escape(const std::string& s);

// The same, also allowing line breaks after some punctuation and inside long runs of digits
// and symbols (for paths, check details and other long strings in narrow table columns).
std::string latex_escape_breakable(const std::string& s);

}  // namespace seqi
