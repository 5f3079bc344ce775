#include "suite/adapters/peer_source.h"

#include <sys/wait.h>

#include <array>
#include <cstdio>
#include <stdexcept>
#include <string>
#include <vector>

#include "common/cache_root.h"
#include "common/file_lock.h"
#include "common/runner_install.h"
#include "submission/content_hash.h"

namespace keval {
namespace {

const std::array<const char*, 4> kKinds = {"tritonbench-g", "tritonbench-t", "kernelbenchx", "kernelbench"};

std::filesystem::path cache_root() {
  return keval_cache_root() / "adapted";
}

std::string quote(const std::string& text) {
  std::string out = "'";
  for (char c : text) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

// Runs the Python adapter (echoing its output when asked); its last line is the reason when
// it fails.
void run_adapter(const std::vector<std::string>& args, bool echo = false) {
  std::string command = quote(choose_python("")) + " -m keval_adapters";
  for (const auto& arg : args) {
    command += ' ';
    command += quote(arg);
  }
  const std::string runner = find_runner_dir().string();
  const char* old = std::getenv("PYTHONPATH");
  command = "PYTHONPATH=" + quote(runner + (old && *old ? ":" + std::string(old) : "")) + " " +
            command + " 2>&1";
  std::string output;
  FILE* pipe = ::popen(command.c_str(), "r");
  if (!pipe) throw std::runtime_error("cannot start the peer adapter");
  char buffer[4096];
  while (std::fgets(buffer, sizeof buffer, pipe)) {
    output += buffer;
    if (echo) std::fputs(buffer, stdout);
  }
  int status = ::pclose(pipe);
  if (status != 0) {
    while (!output.empty() && output.back() == '\n') output.pop_back();
    auto last = output.rfind('\n');
    throw std::runtime_error(last == std::string::npos ? output : output.substr(last + 1));
  }
}

}  // namespace

std::optional<PeerSpec> parse_peer_spec(const std::string& spec) {
  for (const char* kind : kKinds) {
    const std::string prefix = std::string(kind) + ":";
    if (spec.rfind(prefix, 0) != 0) continue;
    PeerSpec peer{kind, spec.substr(prefix.size()), ""};
    // kernelbench:PATH:1,2 — a trailing ":levels" that is not part of an existing path
    auto colon = peer.path.rfind(':');
    if (colon != std::string::npos && !std::filesystem::exists(peer.path)) {
      peer.extra = peer.path.substr(colon + 1);
      peer.path = peer.path.substr(0, colon);
    }
    return peer;
  }
  return std::nullopt;
}

std::filesystem::path adapt_peer_suite(const PeerSpec& spec) {
  if (!std::filesystem::exists(spec.path)) {
    throw std::runtime_error(spec.kind + ":" + spec.path + ": no such checkout");
  }
  const std::string absolute = std::filesystem::absolute(spec.path).string();
  auto out = cache_root() / (spec.kind + "-" + sha256_hex(absolute + "\n" + spec.extra).substr(0, 16));
  std::vector<std::string> args = {spec.kind, "suite", "--source", absolute, "--out", out.string()};
  if (!spec.extra.empty()) args.insert(args.end(), {"--select", spec.extra});
  // One adaptation of a folder at a time: a second process then finds it up to date
  FileLock lock(std::filesystem::path(out) += ".lock");
  run_adapter(args);
  return out;
}

std::filesystem::path adapt_peer_submissions(const PeerSpec& spec, const PeerSpec& suite_spec) {
  const std::string absolute = std::filesystem::absolute(spec.path).string();
  auto out = cache_root() / "submissions" / (spec.kind + "-" + sha256_hex(absolute).substr(0, 16) + ".jsonl");
  std::filesystem::create_directories(out.parent_path());
  std::vector<std::string> args = {spec.kind, "submissions", "--source", absolute, "--out", out.string()};
  if (!suite_spec.path.empty()) {
    args.insert(args.end(), {"--suite", std::filesystem::absolute(suite_spec.path).string()});
  }
  FileLock lock(std::filesystem::path(out) += ".lock");
  run_adapter(args);
  return out;
}

void compare_peer_judges(const PeerSpec& submissions, const PeerSpec& suite,
                         const JudgeComparison& options) {
  if (submissions.kind != suite.kind) {
    throw std::runtime_error("--submissions is " + submissions.kind + " but --suite is " + suite.kind +
                             ": compare-judges needs one peer's submissions and checkout");
  }
  for (const auto& [what, path] : {std::pair<std::string, std::string>{"--suite", suite.path},
                                   {"--submissions", submissions.path},
                                   {"--results", options.results.string()}}) {
    if (!std::filesystem::exists(path)) throw std::runtime_error(what + ": " + path + " does not exist");
  }
  run_adapter({suite.kind, "compare-judges", "--results", std::filesystem::absolute(options.results).string(),
               "--source", std::filesystem::absolute(submissions.path).string(),
               "--suite", std::filesystem::absolute(suite.path).string(),
               "--out", std::filesystem::absolute(options.report).string(), "--device", options.device,
               "--python", choose_python(""), "--jobs", std::to_string(options.jobs),
               "--timeout", std::to_string(options.timeout_s), "--deadline", std::to_string(options.deadline_s)},
              true);
}

void show_published_times(const PeerSpec& suite, const std::filesystem::path& results,
                          const std::string& gpu, const std::filesystem::path& out) {
  if (suite.kind != "kernelbenchx") {
    throw std::runtime_error("--suite is " + suite.kind + ": only KernelBenchX publishes golden times per GPU");
  }
  for (const auto& [what, path] : {std::pair<std::string, std::string>{"--suite", suite.path},
                                   {"--results", results.string()}}) {
    if (!std::filesystem::exists(path)) throw std::runtime_error(what + ": " + path + " does not exist");
  }
  std::vector<std::string> args = {suite.kind, "published-times",
                                   "--suite", std::filesystem::absolute(suite.path).string(),
                                   "--results", std::filesystem::absolute(results).string()};
  if (!gpu.empty()) args.insert(args.end(), {"--gpu", gpu});
  if (!out.empty()) args.insert(args.end(), {"--out", std::filesystem::absolute(out).string()});
  run_adapter(args, true);
}

std::filesystem::path resolve_suite_folder(const std::string& suite) {
  auto peer = parse_peer_spec(suite);
  return peer ? adapt_peer_suite(*peer) : std::filesystem::path(suite);
}

}  // namespace keval
