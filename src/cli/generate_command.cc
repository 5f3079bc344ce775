// keval generate: samples from an OpenAI-compatible server or the Anthropic Messages API
// (a model named anthropic/NAME) into a submissions JSONL
// (docs/generate.md). The HTTP client, prompts and retrieval are Python (runner/keval_generate,
// docs/decisions/0022-generate-in-python.md says why); this side checks the options and the suite and picks the tasks.
// With --turns N the Python side judges each turn by running this same binary's `keval run`.
#include <filesystem>
#include <iostream>
#include <sstream>

#include "cli/commands.h"
#include "engine/runner/python_tool.h"
#include "suite/adapters/peer_source.h"
#include "suite/suite.h"

namespace keval {
namespace {

struct GenerateOptions {
  std::string suite, tasks, model, base_url, api_key_env, prompt = "zero-shot", out, store, corpus, python;
  int samples = 0;
  int concurrency = 8;
  int max_tokens = 0;
  int max_attempts = 8;
  double request_timeout = 600;
  std::optional<double> temperature, price_prompt, price_completion;
  int turns = 1;
  std::string judge_out, device;
  int jobs = 0;
  bool no_timing = false;
  // Request settings, checked and sent by the Python side (runner/keval_generate/request_settings.py).
  std::vector<std::string> headers, stops;
  std::optional<double> top_p;
  int n = 1;
  std::optional<int> thinking_budget;
  std::string prices, system_prompt, templ, reasoning_effort;
  bool stream = false;
};

std::string number(double value) {
  std::ostringstream out;
  out.precision(17);
  out << value;
  return out.str();
}

void add_request_args(const GenerateOptions& o, std::vector<std::string>& args) {
  for (const auto& h : o.headers) args.push_back("--header=" + h);
  for (const auto& s : o.stops) args.push_back("--stop=" + s);  // "=": a stop that starts with "-" stays a value
  if (o.top_p) args.insert(args.end(), {"--top-p", number(*o.top_p)});
  if (o.n > 1) args.insert(args.end(), {"--n", std::to_string(o.n)});
  if (o.thinking_budget) args.insert(args.end(), {"--thinking-budget", std::to_string(*o.thinking_budget)});
  if (!o.prices.empty()) args.insert(args.end(), {"--prices", o.prices});
  if (!o.system_prompt.empty()) args.push_back("--system-prompt=" + o.system_prompt);
  if (!o.templ.empty()) args.insert(args.end(), {"--template", o.templ});
  if (!o.reasoning_effort.empty()) args.insert(args.end(), {"--reasoning-effort", o.reasoning_effort});
  if (o.stream) args.push_back("--stream");
}

// Beside the output, named after it: subs.jsonl -> subs.generate.db, subs.turns.
std::string beside_out(const std::string& out, const std::string& suffix) {
  std::filesystem::path path = out;
  return (path.parent_path() / (path.stem().string() + suffix)).string();
}

// --turns N: where and how each turn is judged (keval run's own options, passed through).
void add_refine_args(const GenerateOptions& o, std::vector<std::string>& args) {
  args.insert(args.end(), {"--turns", std::to_string(o.turns), "--judge-suite", o.suite, "--judge-out",
                           o.judge_out.empty() ? beside_out(o.out, ".turns") : o.judge_out,
                           "--keval", std::filesystem::read_symlink("/proc/self/exe").string()});
  if (!o.device.empty()) args.insert(args.end(), {"--judge-arg=--device", "--judge-arg=" + o.device});
  if (o.jobs > 0) args.insert(args.end(), {"--judge-arg=--jobs", "--judge-arg=" + std::to_string(o.jobs)});
  if (o.no_timing) args.push_back("--judge-arg=--no-timing");
}

std::vector<std::string> tool_args(const GenerateOptions& o, const Suite& suite, const std::string& kind) {
  std::string names;
  for (const Task* task : suite.select(o.tasks)) names += (names.empty() ? "" : ",") + task->name;
  if (names.empty()) throw std::runtime_error("--tasks " + o.tasks + ": no task of " + o.suite + " matches");
  std::vector<std::string> args = {"generate", "--suite-folder", suite.dir().string(), "--suite-kind", kind,
                                   "--task-names", names, "--model", o.model, "--base-url", o.base_url,
                                   "--samples", std::to_string(o.samples), "--out", o.out,
                                   "--store", o.store.empty() ? beside_out(o.out, ".generate.db") : o.store,
                                   "--prompt", o.prompt, "--concurrency", std::to_string(o.concurrency),
                                   "--max-attempts", std::to_string(o.max_attempts),
                                   "--request-timeout", number(o.request_timeout)};
  if (!o.api_key_env.empty()) args.insert(args.end(), {"--api-key-env", o.api_key_env});
  if (o.temperature) args.insert(args.end(), {"--temperature", number(*o.temperature)});
  if (o.max_tokens > 0) args.insert(args.end(), {"--max-tokens", std::to_string(o.max_tokens)});
  if (o.price_prompt) args.insert(args.end(), {"--price-prompt", number(*o.price_prompt)});
  if (o.price_completion) args.insert(args.end(), {"--price-completion", number(*o.price_completion)});
  if (!o.corpus.empty()) args.insert(args.end(), {"--corpus", o.corpus});
  add_request_args(o, args);
  if (o.turns > 1) add_refine_args(o, args);
  return args;
}

}  // namespace

void add_generate_command(CLI::App& app, CommandAction& action) {
  auto* cmd = app.add_subcommand("generate", "sample kernels from an OpenAI-compatible or Anthropic API into submissions JSONL");
  auto o = std::make_shared<GenerateOptions>();
  cmd->add_option("--suite", o->suite, "suite folder or KIND:CHECKOUT (tritonbench-g, tritonbench-t, kernelbench, kernelbenchx)")
      ->required();
  cmd->add_option("--tasks", o->tasks, "only tasks matching this glob");
  cmd->add_option("--model", o->model, "model name as the server knows it; anthropic/NAME: the Anthropic Messages API, openai/NAME: NAME")
      ->required();
  cmd->add_option("--base-url", o->base_url, "the API's base URL, e.g. http://localhost:8000/v1")->required();
  cmd->add_option("--api-key-env", o->api_key_env, "environment variable holding the API key (default OPENAI_API_KEY, if set)");
  cmd->add_option("--samples", o->samples, "samples per task (K)")->required()->check(CLI::Range(1, 10000));
  cmd->add_option("--prompt", o->prompt, "zero-shot (default), one-shot or one-shot-retrieved")
      ->check(CLI::IsMember({"zero-shot", "one-shot", "one-shot-retrieved"}));
  cmd->add_option("--temperature", o->temperature, "sampling temperature (default: the server's)")->check(CLI::Range(0.0, 2.0));
  cmd->add_option("--max-tokens", o->max_tokens, "completion token limit (default: the server's)")->check(CLI::Range(1, 10000000));
  cmd->add_option("--concurrency", o->concurrency, "requests in flight (default 8)")->check(CLI::Range(1, 1024));
  cmd->add_option("--out", o->out, "submissions JSONL to write")->required();
  cmd->add_option("--store", o->store, "SQLite store of every response (default: OUT's stem + .generate.db)");
  cmd->add_option("--corpus", o->corpus, "a peer checkout or JSON/JSONL file added to the one-shot corpus");
  cmd->add_option("--price-prompt", o->price_prompt, "USD per million prompt tokens (records the cost)")->check(CLI::Range(0.0, 1e6));
  cmd->add_option("--price-completion", o->price_completion, "USD per million completion tokens")->check(CLI::Range(0.0, 1e6));
  cmd->add_option("--prices", o->prices, "JSON price table: {MODEL: {input, output}} USD per million tokens")
      ->check(CLI::ExistingFile);
  cmd->add_option("--top-p", o->top_p, "nucleus sampling's top_p (default: the server's)")->check(CLI::Range(0.0, 1.0));
  cmd->add_option("--stop", o->stops, "a stop sequence (repeatable)");
  cmd->add_option("--n", o->n, "answers per request, the samples of a task asked together (OpenAI-compatible; default 1)")
      ->check(CLI::Range(1, 128));
  cmd->add_option("--header", o->headers, "an extra request header, \"NAME: VALUE\" (repeatable)");
  cmd->add_flag("--stream", o->stream, "ask for a streamed answer (server-sent events), read as it streams");
  cmd->add_option("--system-prompt", o->system_prompt, "system prompt text, in place of the template's");
  cmd->add_option("--template", o->templ, "prompt template NAME.vN of runner/keval_generate/prompts (default: the suite's)");
  cmd->add_option("--thinking-budget", o->thinking_budget, "Anthropic extended thinking's budget_tokens")
      ->check(CLI::Range(1024, 10000000));
  cmd->add_option("--reasoning-effort", o->reasoning_effort, "OpenAI reasoning models' reasoning_effort")
      ->check(CLI::IsMember({"minimal", "low", "medium", "high"}));
  cmd->add_option("--request-timeout", o->request_timeout, "seconds per request (default 600)")->check(CLI::Range(1.0, 86400.0));
  cmd->add_option("--max-attempts", o->max_attempts, "attempts per request before giving up (default 8)")->check(CLI::Range(1, 100));
  cmd->add_option("--turns", o->turns, "answers per sample, each after the judge's feedback on the last (default 1)")
      ->check(CLI::Range(1, 100));
  cmd->add_option("--judge-out", o->judge_out, "--turns: folder of each turn's keval run (default: OUT's stem + .turns)");
  cmd->add_option("--device", o->device, "--turns: keval run's --device (auto, cpu or cuda)")
      ->check(CLI::IsMember({"auto", "cpu", "cuda"}));
  cmd->add_option("--jobs", o->jobs, "--turns: keval run's --jobs")->check(CLI::Range(1, 4096));
  cmd->add_flag("--no-timing", o->no_timing, "--turns: judge correctness only (no speedup in the feedback)");
  cmd->add_option("--python", o->python, "Python interpreter (default: $KEVAL_PYTHON, else python3)");
  cmd->callback([o, &action] {
    action = [o] {
      use_python(o->python);
      if (o->price_prompt.has_value() != o->price_completion.has_value()) {
        throw std::runtime_error("--price-prompt and --price-completion go together (the cost needs both)");
      }
      const auto peer = parse_peer_spec(o->suite);
      const Suite suite = Suite::load(resolve_suite_folder(o->suite));
      auto args = tool_args(*o, suite, peer ? peer->kind : "keval");
      if (peer) args.insert(args.end(), {"--peer-checkout", peer->path});  // its own corpus, when it has one
      const int status = run_python_tool("keval_generate", args);  // it says why when it fails
      return status == 2 ? 1 : status;
    };
  });
}

}  // namespace keval
