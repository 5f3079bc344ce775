#include "cli/dataset_tool.h"

#include <sys/wait.h>

#include <cstdio>
#include <iostream>
#include <stdexcept>

#include "engine/runner/runner_process.h"

namespace keval {
namespace {

std::string quote(const std::string& text) {
  std::string out = "'";
  for (char c : text) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

}  // namespace

void run_dataset_tool(const std::vector<std::string>& args) {
  std::string command = quote(choose_python("")) + " -m keval_dataset";
  for (const auto& arg : args) command += " " + quote(arg);
  const std::string runner = find_runner_dir().string();
  const char* old = std::getenv("PYTHONPATH");
  command = "PYTHONPATH=" + quote(runner + (old && *old ? ":" + std::string(old) : "")) + " " + command + " 2>&1";
  FILE* pipe = ::popen(command.c_str(), "r");
  if (!pipe) throw std::runtime_error("cannot start python -m keval_dataset");
  std::string output;
  char buffer[4096];
  while (std::fgets(buffer, sizeof buffer, pipe)) output += buffer;
  const int status = ::pclose(pipe);
  if (status != 0) {
    while (!output.empty() && output.back() == '\n') output.pop_back();
    const auto last = output.rfind('\n');
    throw std::runtime_error(last == std::string::npos ? output : output.substr(last + 1));
  }
  std::cout << output;
}

}  // namespace keval
