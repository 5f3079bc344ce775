#include "engine/session/code_metrics.h"

#include <fstream>
#include <map>
#include <sstream>

#include <nlohmann/json.hpp>

#include "engine/runner/python_tool.h"

namespace keval {
namespace {

std::string file_text(const std::filesystem::path& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

}  // namespace

bool wants_code_metrics(const std::string& mode, const std::vector<Submission>& submissions) {
  if (mode == "on") return true;
  if (mode != "auto") return false;
  for (const auto& s : submissions) {
    if (s.generation.is_object()) return true;
  }
  return false;
}

void add_code_metrics(std::vector<SubmissionResult>& results, const std::vector<const Submission*>& submissions,
                      const Suite& suite, const std::filesystem::path& work_dir, std::ostream& log) {
  std::filesystem::create_directories(work_dir);
  const auto input = work_dir / "code-metrics-in.jsonl";
  const auto output = work_dir / "code-metrics-out.jsonl";
  std::map<std::string, std::string> goldens;  // task -> golden.py text
  for (const Task* task : suite.select("")) goldens[task->name] = file_text(task->golden_path());
  size_t count = 0;
  {
    std::ofstream out(input);
    for (size_t i = 0; i < results.size() && i < submissions.size(); ++i) {
      const Submission& s = *submissions[i];
      if (!s.error.empty() || s.code.empty()) continue;
      auto golden = goldens.find(s.task);
      out << nlohmann::json{{"index", i}, {"code", s.code}, {"golden", golden == goldens.end() ? "" : golden->second}}
                 .dump(-1, ' ', false, nlohmann::json::error_handler_t::replace)
          << "\n";
      ++count;
    }
  }
  if (count == 0) return;
  const int status = run_python_tool("keval_generate", {"metrics", "--input", input.string(), "--output", output.string()});
  if (status != 0) {
    log << "keval: code metrics failed (python -m keval_generate metrics exited " << status
        << "); codebleu and maintainability are null\n";
    return;
  }
  std::ifstream in(output);
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty()) continue;
    auto row = nlohmann::json::parse(line, nullptr, false);
    if (row.is_discarded() || !row.contains("index")) continue;
    const size_t index = row["index"].get<size_t>();
    row.erase("index");
    if (index < results.size()) results[index].code_metrics = row;
  }
}

}  // namespace keval
