#pragma once
// Peer benchmarks (TritonBench-G/T, KernelBenchX, KernelBench) read from the user's own checkout.
// `--suite KIND:PATH` and `--submissions KIND:PATH` name them. The Python side
// (`python -m keval_adapters`) turns the peer's files into native keval task folders (and
// its submission files into native JSONL) in a cache folder, so everything else — sandbox,
// judge, timing, store, reports — is shared.
#include <filesystem>
#include <optional>
#include <string>

namespace keval {

struct PeerSpec {
  std::string kind;   // tritonbench-g | tritonbench-t | kernelbenchx | kernelbench
  std::string path;   // the user's checkout (or a submissions file)
  std::string extra;  // what follows a second ':' (e.g. kernelbench levels "1,2")
};

// nullopt when `spec` names a plain folder or file (no known KIND: prefix).
std::optional<PeerSpec> parse_peer_spec(const std::string& spec);

// Converts a peer suite into native task folders; returns the folder to load as a suite.
// Throws std::runtime_error with the adapter's one-line reason when it fails.
std::filesystem::path adapt_peer_suite(const PeerSpec& spec);

// Converts a peer's submission file (e.g. TritonBench's LLM_generated JSONL) into native JSONL
// for the tasks of `suite_spec`; returns the JSONL's path.
std::filesystem::path adapt_peer_submissions(const PeerSpec& spec, const PeerSpec& suite_spec);

struct JudgeComparison {
  std::filesystem::path results;  // results.jsonl of a keval run on the peer's submissions
  std::filesystem::path report;   // JSON report to write
  std::string device = "auto";    // where the peer's own scripts run
  int jobs = 2;
  int timeout_s = 300;            // per script
  int deadline_s = 0;             // the whole comparison (0: no limit): scripts not run by then are skipped
};

// `keval compare-judges`: keval's verdicts on a peer's submissions beside what the peer's own
// harness would have said (TritonBench: exit code and stdout; KernelBenchX: one-process,
// one-seed assert_close; KernelBench: one-process allclose over 5 seeded trials). Prints the
// adapter's table; throws with its one-line reason.
void compare_peer_judges(const PeerSpec& submissions, const PeerSpec& suite, const JudgeComparison& options);

// `keval published-times`: for a keval run on KernelBenchX tasks, the golden times KernelBenchX
// published (metrics/golden_results/<gpu>/) beside keval's own of the same perf inputs. `gpu`
// empty: the run's GPU. Prints the adapter's table; throws with its one-line reason.
void show_published_times(const PeerSpec& suite, const std::filesystem::path& results,
                          const std::string& gpu, const std::filesystem::path& out);

// A suite folder or peer spec, made loadable: `DIR` as is, `KIND:PATH` adapted first.
std::filesystem::path resolve_suite_folder(const std::string& suite);

}  // namespace keval
