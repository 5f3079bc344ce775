#include "cli/parse_error.h"

#include <string>
#include <vector>

#include "common/near_name.h"

namespace keval {
namespace {

std::vector<std::string> subcommand_names(const CLI::App& app) {
  std::vector<std::string> names;
  for (const CLI::App* sub : app.get_subcommands([](const CLI::App*) { return true; })) {
    names.push_back(sub->get_name());
  }
  return names;
}

const CLI::App* subcommand_named(const CLI::App& app, const std::string& name) {
  for (const CLI::App* sub : app.get_subcommands([](const CLI::App*) { return true; })) {
    if (sub->get_name() == name) return sub;
  }
  return nullptr;
}

const CLI::Option* long_option(const CLI::App& app, const std::string& name) {
  for (const CLI::App* level = &app; level; level = level->get_parent()) {
    for (const CLI::Option* option : level->get_options()) {
      for (const auto& lname : option->get_lnames()) {
        if ("--" + lname == name) return option;
      }
    }
  }
  return nullptr;
}

std::vector<std::string> long_option_names(const CLI::App& app) {
  std::vector<std::string> names;
  for (const CLI::Option* option : app.get_options()) {
    for (const auto& lname : option->get_lnames()) names.push_back("--" + lname);
  }
  return names;
}

std::string command_path(const CLI::App& app) {
  std::string path;
  for (const CLI::App* level = &app; level && level->get_parent(); level = level->get_parent()) {
    path = level->get_name() + (path.empty() ? "" : " " + path);
  }
  return "keval" + (path.empty() ? "" : " " + path);
}

// The first misspelled command or unknown long option in argv, as a message; "" when the
// words are all known (the error is of another kind, e.g. a missing option).
std::string misspelling(const CLI::App& app, int argc, const char* const* argv, const CLI::App*& level) {
  level = &app;
  for (int i = 1; i < argc; ++i) {
    const std::string word = argv[i];
    if (word == "--") break;
    if (word.rfind("--", 0) == 0) {
      const std::string name = word.substr(0, word.find('='));
      const CLI::Option* option = long_option(*level, name);
      if (!option) {
        return "unknown option " + name + " for " + command_path(*level) +
               did_you_mean(name, long_option_names(*level));
      }
      if (option->get_expected_min() > 0 && word.find('=') == std::string::npos) ++i;  // its value
      continue;
    }
    if (word.rfind('-', 0) == 0) continue;
    const std::vector<std::string> names = subcommand_names(*level);
    if (names.empty()) continue;  // a positional argument of a leaf command
    if (const CLI::App* sub = subcommand_named(*level, word)) {
      level = sub;
      continue;
    }
    return "unknown command \"" + word + "\" for " + command_path(*level) + did_you_mean(word, names);
  }
  return "";
}

}  // namespace

int report_parse_error(CLI::App& app, const CLI::ParseError& error, int argc, const char* const* argv,
                       std::ostream& err) {
  const CLI::App* level = nullptr;
  std::string message = misspelling(app, argc, argv, level);
  // Help asked beside a misspelled word is an error too: CLI11 would print the help of the
  // last command it knew and exit 0, as if `keval NOSUCH --help` named a command.
  if (message.empty() && (dynamic_cast<const CLI::CallForHelp*>(&error) ||
                          dynamic_cast<const CLI::CallForAllHelp*>(&error) ||
                          dynamic_cast<const CLI::CallForVersion*>(&error) || error.get_exit_code() == 0)) {
    return app.exit(error);
  }
  if (message.empty()) {
    message = error.what();
    if (dynamic_cast<const CLI::RequiredError*>(&error) && level == &app) {
      message = "a command is required (" + [&] {
        std::string list;
        for (const auto& name : subcommand_names(app)) list += (list.empty() ? "" : ", ") + name;
        return list;
      }() + ")";
    }
  }
  err << "keval: " << message << " (" << command_path(*level) << " --help)\n";
  return 1;
}

}  // namespace keval
