#pragma once
// Command-line mistakes as keval reports them: one line starting "keval: ", naming the near
// miss of a misspelled command or option, and exit status 1 (CLI11's own codes, 105/106/109,
// and its unprefixed messages said neither what was wrong nor how to fix it).
#include <ostream>

#include <CLI/CLI.hpp>

namespace keval {

// Handles a ParseError from app.parse(argc, argv): help and --version print as CLI11 prints
// them and return 0, unless a command or option beside them is unknown; any other error
// prints its line on `err` and returns 1.
int report_parse_error(CLI::App& app, const CLI::ParseError& error, int argc, const char* const* argv,
                       std::ostream& err);

}  // namespace keval
