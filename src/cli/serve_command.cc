// keval serve: an HTTP evaluation service (src/serve/, docs/scale.md).
#include <algorithm>
#include <fstream>
#include <iostream>
#include <memory>

#include "cli/commands.h"
#include "engine/results/out_lock.h"
#include "engine/session/work_root.h"
#include "serve/descriptor_budget.h"
#include "serve/http_server.h"
#include "serve/preset.h"
#include "serve/run_batch_evaluator.h"
#include "suite/adapters/peer_source.h"

namespace keval {
namespace {

std::string read_token(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw std::runtime_error("--token-file " + path + ": cannot read it");
  std::string token;
  std::getline(in, token);
  while (!token.empty() && (token.back() == '\r' || token.back() == ' ')) token.pop_back();
  if (token.empty()) throw std::runtime_error("--token-file " + path + ": the first line is empty");
  return token;
}

// --max-connections within the file-descriptor limit, raised to the hard limit if need be
// (serve/descriptor_budget.h); a default that does not fit is clamped, and the server says so.
size_t fitted_connections(const RunOptions& base, int lanes, const HttpOptions& http) {
  const int per_gpu = slots_per_gpu_guess(base);
  // with lanes, each takes its share of a GPU's slots (below), at least one
  const size_t slots_per_gpu = lanes == 1 ? per_gpu : lanes * std::max(1, per_gpu / lanes);
  const size_t reserve = descriptors_besides_connections(
      {static_cast<size_t>(lanes), slots_per_gpu * gpus_at_most(base.device, base.gpus)});
  const size_t default_max = 4 * static_cast<size_t>(http.threads);
  const size_t limit = raise_descriptor_limit((http.max_connections ? http.max_connections : default_max) + reserve);
  std::string note;
  const size_t fitted = fit_max_connections(http.max_connections, default_max, limit, reserve, note);
  if (!note.empty()) std::cerr << "keval serve: " << note << "\n";
  return fitted;
}

}  // namespace

void add_serve_command(CLI::App& app, CommandAction& action) {
  auto* cmd = app.add_subcommand("serve", "an HTTP service that judges submissions (rewards for RL)");
  auto suite_dir = std::make_shared<std::string>();
  auto out = std::make_shared<std::string>("out/serve");
  auto run = std::make_shared<RunOptions>();
  auto http = std::make_shared<HttpOptions>();
  auto service = std::make_shared<ServiceOptions>();
  auto token_file = std::make_shared<std::string>();
  auto reward_file = std::make_shared<std::string>();
  auto no_timing = std::make_shared<bool>(false);
  auto no_sandbox = std::make_shared<bool>(false);
  auto lanes = std::make_shared<int>(1);
  cmd->add_option("--suite", *suite_dir, "suite folder (or KIND:PATH)")->required();
  cmd->add_option("--port", http->port, "TCP port")->required()->check(CLI::Range(0, 65535));
  cmd->add_option("--host", http->host, "address to listen on (default 127.0.0.1)");
  cmd->add_option("--device", run->device, "auto, cpu (Triton interpreter) or cuda")
      ->check(CLI::IsMember({"auto", "cpu", "cuda"}));
  cmd->add_option("--out", *out, "folder: queue.db (the jobs), keval.db (every evaluation), logs/ (default out/serve)");
  cmd->add_option("--token-file", *token_file, "require Authorization: Bearer <first line of this file>");
  cmd->add_option("--max-body", http->max_body, "largest request body in bytes (default 1 MiB)")->check(CLI::Range(64, 1 << 30));
  cmd->add_option("--tls-cert", http->cert_file, "PEM certificate: serve HTTPS (with --tls-key)");
  cmd->add_option("--tls-key", http->key_file, "PEM private key for --tls-cert");
  cmd->add_option("--preset", service->default_preset, "preset of requests that name none: quick (default), standard, thorough")
      ->check(CLI::IsMember({"quick", "standard", "thorough"}));
  cmd->add_option("--reward-config", *reward_file, "JSON ladder that adds a shaped reward to each answer (docs/scale.md)");
  cmd->add_option("--lanes", *lanes, "batches judged at once, each on its share of the slots, so one waiting for its "
                  "slowest job does not hold back the queue (default 1; OUT/lane-N each)")->check(CLI::Range(1, 16));
  cmd->add_option("--max-batch", service->max_batch, "queued jobs one evaluation run takes at most (default 64; with "
                  "--lanes, twice a lane's slots)")
      ->check(CLI::Range(1, 100000));
  cmd->add_option("--forget-after", service->forget_after_s, "seconds a finished job stays in queue.db (GET /v1/jobs/{id} "
                  "answers it) before it is deleted; its evaluation stays in keval.db (default: kept)")
      ->check(CLI::Range(1.0, 1e9));
  cmd->add_option("--batch-wait", service->gather_s, "seconds an idle server waits after a request for others to batch with it (default 0.25)")
      ->check(CLI::Range(0.0, 60.0));
  cmd->add_option("--http-threads", http->threads, "connections served at once (default 128; at most three "
                  "quarters of them wait for a job at once, a wait over that is answered with the job's state)")->check(CLI::Range(4, 4096));
  cmd->add_option("--max-connections", http->max_connections, "connections held at once, served or waiting for a "
                  "thread (default 4 x --http-threads, fewer where ulimit -n has no room for them); one more is answered 503, "
                  "/v1/health and /metrics as usual")
      ->check(CLI::Range(1, 1 << 20));
  cmd->add_option("--jobs", run->jobs, kJobsHelp)->check(CLI::Range(1, 256));
  cmd->add_option("--gpus", run->gpus, "CUDA devices to use, e.g. 0,1 (default: all)")->delimiter(',');
  cmd->add_option("--python", run->python, "Python interpreter for the runner (or KEVAL_PYTHON)");
  cmd->add_option("--timeout", run->timeout_s, "seconds per job, over the preset's")->check(CLI::Range(1, 86400));
  cmd->add_flag("--no-timing", *no_timing, "judge correctness only, whatever the preset");
  cmd->add_flag("--no-sandbox", *no_sandbox, "run jobs without uid switch, network isolation and rlimits");
  cmd->callback([=, &action] {
    action = [=] {
      use_python(run->python);
      Suite suite = Suite::load(resolve_suite_folder(*suite_dir));
      HttpOptions http_options = *http;
      if (!token_file->empty()) http_options.token = read_token(*token_file);
      ServiceOptions service_options = *service;
      service_options.suite_name = suite_label(*suite_dir);
      // A quarter of the HTTP threads (at least 2) never wait for a job: health, metrics and
      // new requests are answered however many clients long-poll.
      service_options.max_waiting = static_cast<size_t>(http->threads - std::max(2, http->threads / 4));
      if (!reward_file->empty()) service_options.reward = RewardShaping::load(*reward_file);
      RunOptions base = *run;
      base.out = *out;
      base.timing = !*no_timing;
      base.sandbox = !*no_sandbox;
      base.suite_label = suite_label(*suite_dir);
      http_options.max_connections = fitted_connections(base, *lanes, *http);
      // One server per folder, and no keval run beside it: a second one would queue the
      // first one's running jobs again and fail them.
      OutLock out_lock(base.out);
      base.out_locked = true;
      std::filesystem::create_directories(base.out / "logs");
      JobQueue queue(base.out / "queue.db");
      if (queue.requeued_at_start() > 0) {
        std::cerr << "keval serve: " << queue.requeued_at_start()
                  << " job(s) were running when the server stopped; queued again (finished evaluations resume)\n";
      }
      std::ofstream log(base.out / "logs" / "serve.log", std::ios::app);
      std::vector<std::unique_ptr<RunBatchEvaluator>> evaluators;
      std::vector<BatchEvaluator*> lane_list;
      std::vector<std::unique_ptr<std::ofstream>> lane_logs;  // one per lane: they write at once
      std::filesystem::path gates_folder;
      if (*lanes == 1) {
        evaluators.push_back(std::make_unique<RunBatchEvaluator>(suite, base, log));
      } else {
        // Each lane has its slots and its folder (logs, work, its last batch's results); the
        // store is one (a job queued again after a restart resumes in any lane), and so are
        // the GPUs' gates, so a timing job has its GPU alone against every lane.
        const int lane_jobs = std::max(1, slots_per_gpu_guess(base) / *lanes);
        if (service->max_batch == ServiceOptions{}.max_batch) service_options.max_batch = 2 * static_cast<size_t>(lane_jobs);
        // A run's work folder may be a fallback removed at its end: the hold files must last.
        gates_folder = lasting_work_folder(base.out, "device-gates");
        auto gates = std::make_shared<GpuGates>(gates_folder);
        for (int i = 0; i < *lanes; ++i) {
          RunOptions lane = base;
          lane.out = base.out / ("lane-" + std::to_string(i));
          lane.out_locked = false;  // a lane's own folder is locked by each of its runs
          lane.jobs = lane_jobs;
          lane.store_file = base.out / "keval.db";
          std::filesystem::create_directories(lane.out / "logs");
          lane_logs.push_back(std::make_unique<std::ofstream>(lane.out / "logs" / "serve.log", std::ios::app));
          evaluators.push_back(std::make_unique<RunBatchEvaluator>(suite, lane, *lane_logs.back(), gates));
        }
      }
      for (auto& evaluator : evaluators) lane_list.push_back(evaluator.get());
      Service svc(queue, suite, lane_list, service_options);
      serve_http(svc, http_options);
      svc.stop();
      if (!gates_folder.empty() && gates_folder.parent_path() != std::filesystem::absolute(base.out / "work")) {
        std::error_code ignored;  // a fallback under /var/tmp: leave no litter
        std::filesystem::remove_all(gates_folder, ignored);
      }
      return 0;
    };
  });
}

}  // namespace keval
