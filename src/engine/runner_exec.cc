#include "engine/runner_exec.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <map>

extern char** environ;

namespace keval {
namespace {

std::vector<std::string> runner_environment(const RunnerConfig& config) {
  std::map<std::string, std::string> env;
  for (char** item = environ; *item; ++item) {
    std::string entry(*item);
    auto eq = entry.find('=');
    if (eq != std::string::npos) env[entry.substr(0, eq)] = entry.substr(eq + 1);
  }
  std::string path = config.runner_dir.string();
  env["PYTHONPATH"] = env.count("PYTHONPATH") ? path + ":" + env["PYTHONPATH"] : path;
  env["PYTHONUNBUFFERED"] = "1";
  env["PYTHONDONTWRITEBYTECODE"] = "1";
  if (config.interpret) env["TRITON_INTERPRET"] = "1";
  else env.erase("TRITON_INTERPRET");
  for (const auto& [key, value] : config.extra_env) env[key] = value;
  std::vector<std::string> out;
  for (const auto& [key, value] : env) out.push_back(key + "=" + value);
  return out;
}

// Every descriptor from `first` up, in a child between fork and exec: the runner, and through
// it each job's guest, would otherwise hold what the controller had open (the log file opened
// above, a pipe of whatever started keval) and could write into it.
void close_descriptors_from(int first) {
  if (::close_range(static_cast<unsigned>(first), ~0U, 0) == 0) return;
  const long most = ::sysconf(_SC_OPEN_MAX);  // a kernel without close_range (before 5.9)
  for (long fd = first; fd < (most > 0 && most < 65536 ? most : 65536); ++fd) ::close(static_cast<int>(fd));
}

}  // namespace

pid_t exec_runner(const RunnerConfig& config, const std::vector<std::string>& args, int stdin_fd,
                  int stdout_fd, const std::string& log) {
  std::vector<std::string> env = runner_environment(config);
  std::vector<char*> envp;
  for (auto& item : env) envp.push_back(item.data());
  envp.push_back(nullptr);
  std::vector<std::string> words = config.wrapper;
  for (const std::string& word : {config.python, std::string("-m"), std::string("keval_runner")}) {
    words.push_back(word);
  }
  words.insert(words.end(), args.begin(), args.end());
  std::vector<char*> argv;
  for (auto& word : words) argv.push_back(word.data());
  argv.push_back(nullptr);

  const pid_t pid = ::fork();
  if (pid < 0) throw HarnessError(std::string("fork failed: ") + std::strerror(errno));
  if (pid == 0) {
    ::setpgid(0, 0);  // a signal to the controller's group must not reach the runner's children
    int log_fd = ::open(log.c_str(), O_WRONLY | O_CREAT | O_APPEND, 0644);
    ::dup2(stdin_fd, 0);
    if (log_fd >= 0) ::dup2(log_fd, 2);
    ::dup2(stdout_fd >= 0 ? stdout_fd : 2, 1);
    close_descriptors_from(3);
    ::execvpe(argv[0], argv.data(), envp.data());
    std::fprintf(stderr, "cannot execute %s: %s\n", argv[0], std::strerror(errno));
    ::_exit(127);
  }
  return pid;
}

}  // namespace keval
