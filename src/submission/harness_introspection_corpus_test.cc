// The scan's tampering rule against the code keval knows to be honest: every golden of the
// native suite and every peer adapter fixture (their tasks, references and submissions).
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include <nlohmann/json.hpp>

#include "submission/harness_introspection.h"

namespace keval {
namespace {

std::string text_of(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream out;
  out << in.rdbuf();
  return out.str();
}

// Every string value of a JSON document (a submission's code sits in one of them).
void strings_in(const nlohmann::json& value, std::vector<std::string>& out) {
  if (value.is_string()) out.push_back(value.get<std::string>());
  if (value.is_structured()) {
    for (const auto& item : value) strings_in(item, out);
  }
}

std::vector<std::string> reaches_in(const std::string& code, const std::string& origin) {
  std::vector<std::string> found;
  for (const auto& use : find_introspection(code)) {
    if (use.reaches_harness) found.push_back(origin + ": " + use.describe());
  }
  return found;
}

TEST(HarnessIntrospectionCorpusTest, NoGoldenOrPeerFixtureReachesTheRunner) {
  const std::filesystem::path root = KEVAL_SOURCE_DIR;
  std::vector<std::string> found;
  int goldens = 0, fixtures = 0;
  for (const auto& task : std::filesystem::directory_iterator(root / "suites" / "keval")) {
    if (!std::filesystem::exists(task.path() / "golden.py")) continue;
    ++goldens;
    for (auto& f : reaches_in(text_of(task.path() / "golden.py"), task.path().string())) found.push_back(f);
  }
  for (const auto& entry : std::filesystem::recursive_directory_iterator(root / "tests" / "adapters")) {
    // the fixtures only: the adapters' own tests import the runner to test it
    if (entry.path().string().find("/fixture") == std::string::npos) continue;
    const auto ext = entry.path().extension();
    if (ext == ".py") {
      ++fixtures;
      for (auto& f : reaches_in(text_of(entry.path()), entry.path().string())) found.push_back(f);
    } else if (ext == ".jsonl" || ext == ".json") {
      std::istringstream lines(ext == ".json" ? nlohmann::json::parse(text_of(entry.path())).dump() + "\n"
                                              : text_of(entry.path()));
      for (std::string line; std::getline(lines, line);) {
        auto parsed = nlohmann::json::parse(line, nullptr, false);
        std::vector<std::string> texts;
        strings_in(parsed, texts);
        ++fixtures;
        for (const auto& text : texts) {
          for (auto& f : reaches_in(text, entry.path().string())) found.push_back(f);
        }
      }
    }
  }
  EXPECT_GE(goldens, 80);
  EXPECT_GT(fixtures, 30);
  for (const auto& f : found) ADD_FAILURE() << f;
}

}  // namespace
}  // namespace keval
