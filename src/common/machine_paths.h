#pragma once
// Folders of the machine that ran keval, as they appear in text meant for users (reasons,
// harness errors, HTTP answers): each becomes a name relative to the run, so results, reports,
// datasets and answers can be shared without the paths of the machine that made them.
#include <filesystem>
#include <string>
#include <utility>
#include <vector>

namespace keval {

class MachinePaths {
 public:
  // `folder` (as given and canonical) becomes `label`, a path under it `label/rest`; the label
  // "." makes paths under it relative ("logs/runner-0.log").
  void add(const std::filesystem::path& folder, const std::string& label);
  // `text` with every known folder replaced, longest first, then Python's own folders
  // (".../site-packages/", ".../lib/python3.11/") shortened to their last part.
  std::string relative(std::string text) const;

 private:
  std::vector<std::pair<std::string, std::string>> folders_;  // longest folder first
};

}  // namespace keval
