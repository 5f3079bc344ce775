#include "cli/parse_error.h"

#include <gtest/gtest.h>

#include <sstream>

namespace keval {
namespace {

// What keval's main does with argv, on an app with one command.
int parse_like_main(std::vector<const char*> argv, std::ostream& err) {
  CLI::App app{"keval"};
  app.require_subcommand(1);
  std::string suite;
  app.add_subcommand("run", "evaluate")->add_option("--suite", suite);
  try {
    app.parse(static_cast<int>(argv.size()), argv.data());
  } catch (const CLI::ParseError& e) {
    return report_parse_error(app, e, static_cast<int>(argv.size()), argv.data(), err);
  }
  return 0;
}

TEST(ParseError, HelpBesideAnUnknownCommandIsThatError) {
  std::ostringstream err;
  EXPECT_EQ(parse_like_main({"keval", "NOSUCH", "--help"}, err), 1);
  EXPECT_EQ(err.str(), "keval: unknown command \"NOSUCH\" for keval (keval --help)\n");
}

TEST(ParseError, HelpBesideAnUnknownOptionIsThatError) {
  std::ostringstream err;
  EXPECT_EQ(parse_like_main({"keval", "run", "--suit", "x", "--help"}, err), 1);
  EXPECT_EQ(err.str().rfind("keval: unknown option --suit for keval run", 0), 0u) << err.str();
}

TEST(ParseError, HelpOfAKnownCommandIsHelp) {
  std::ostringstream err;
  EXPECT_EQ(parse_like_main({"keval", "run", "--suite", "s", "--help"}, err), 0);
  EXPECT_EQ(parse_like_main({"keval", "--help"}, err), 0);
  EXPECT_EQ(err.str(), "");
}

}  // namespace
}  // namespace keval
