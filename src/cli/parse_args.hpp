// Command-line parsing shared by verify and verify import.
#pragma once
#include <CLI/CLI.hpp>
#include <optional>

#include "seqi/cli/run.hpp"

namespace seqi {

// Parses argv into app. Returns the exit code when the run ends here: 0 after --help or
// --version, kBadInput (2) on a usage error (CLI11 has printed it); nullopt to go on.
inline std::optional<int> parse_args(CLI::App& app, int argc, char** argv) {
  try {
    app.parse(argc, argv);
  } catch (const CLI::Success& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    app.exit(e);
    return kBadInput;
  }
  return std::nullopt;
}

}  // namespace seqi
