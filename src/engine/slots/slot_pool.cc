#include "engine/slots/slot_pool.h"

#include <algorithm>
#include <iostream>
#include <thread>

namespace keval {

SlotPool::SlotPool(std::unique_ptr<WorkerSlot> first, const RunOptions& options, const RunnerConfig& config,
                   const nlohmann::json& probe, const std::string& device, size_t work_items,
                   SandboxSettings& sandbox, const std::string& cache_root, std::ostream& log)
    : gpus_(options.gpus) {
  if (gpus_.empty()) {
    int count = device == "cuda" ? std::max(1, probe.value("gpu_count", 1)) : 1;
    for (int g = 0; g < count; ++g) gpus_.push_back(g);
  }
  // A timing job that waits for a CPU core reads host times far above its event times, which
  // the hidden-work check takes for work outside the timed stream (seen on the H200 at 20
  // slots on 16 cores).
  const unsigned cores = std::thread::hardware_concurrency();
  const auto memory = probe.find("gpu_memory_bytes");  // null without CUDA
  const int64_t gpu_memory = memory != probe.end() && memory->is_number_integer() ? memory->get<int64_t>() : 0;
  const int per_gpu = slots_per_gpu(options.jobs, device, cores, gpus_.size(), gpu_memory);
  const size_t most = static_cast<size_t>(per_gpu) * gpus_.size();
  const int wanted = static_cast<int>(std::max<size_t>(1, std::min(most, work_items)));
  if (device == "cuda" && cores > 0 && static_cast<unsigned>(wanted) >= cores) {
    std::cerr << "keval: warning: " << wanted << " slots on " << cores
              << " CPU cores: timing jobs may wait for a core, and honest kernels may then be "
                 "judged tampering (use --jobs below the core count)\n";
  }
  auto slot_sandbox = [&](int slot) { return sandbox.for_slot(slot, cache_root); };
  if (sandbox.uid_base) {
    if (std::optional<UidLease> lease = UidLease::acquire(wanted)) uid_lease_.emplace(std::move(*lease));
    apply_lease(sandbox);
    first->set_sandbox(slot_sandbox(0));
  }
  slots_.push_back(std::move(first));
  {
    std::vector<std::thread> starters;
    for (int i = 1; i < wanted; ++i) {
      RunnerConfig slot_config = config;
      slot_config.log_path = options.out / "logs" / ("runner-" + std::to_string(i) + ".log");
      slots_.push_back(std::make_unique<WorkerSlot>(slot_config, slot_sandbox(i)));
      starters.emplace_back([slot = slots_.back().get()] { slot->start(); });
    }
    for (auto& starter : starters) starter.join();
  }
  for (size_t i = 0; i < slots_.size(); ++i) {
    slots_[i]->set_gpu(gpus_[i % gpus_.size()]);
    slots_[i]->set_fresh_process_per_job(options.fresh_process_per_job);
  }
  if (options.sanitize) start_sanitizers(options, config, device, log);
}

// Per slot, a runner under compute-sanitizer, ended after each job (the tool writes its
// summary when the process exits).
void SlotPool::start_sanitizers(const RunOptions& options, const RunnerConfig& config,
                                const std::string& device, std::ostream& log) {
  const std::string tool = find_compute_sanitizer();
  if (device != "cuda") log << "keval: --sanitize on the CPU: memcheck sees no GPU work\n";
  for (size_t i = 0; i < slots_.size(); ++i) {
    RunnerConfig sanitized = config;
    sanitized.log_path = options.out / "logs" / ("sanitizer-runner-" + std::to_string(i) + ".log");
    const auto memcheck_log = options.out / "logs" / ("memcheck-" + std::to_string(i) + ".log");
    sanitized.wrapper = memcheck_wrapper(tool, memcheck_log);
    // Each tensor its own cudaMalloc: memcheck then knows every tensor's bounds (inside the
    // caching allocator's segments an access past a tensor's end looked valid to it).
    sanitized.extra_env["PYTORCH_NO_CUDA_MEMORY_CACHING"] = std::string("1");
    sanitizer_slots_.push_back(std::make_unique<WorkerSlot>(sanitized));
    sanitizer_slots_.back()->set_gpu(slots_[i]->gpu());
    WorkerSlot* slot = sanitizer_slots_.back().get();
    sanitizers_.push_back(std::make_unique<SanitizedRunner>(
        *slot, [slot] { slot->stop(std::chrono::seconds(120)); }, memcheck_log));
  }
}

void SlotPool::apply_lease(SandboxSettings& sandbox) const {
  if (uid_lease_) {
    sandbox.slot_uids = uid_lease_->uids();
  } else if (sandbox.uid_base) {
    sandbox.uid_base.reset();
    sandbox.warnings.emplace_back("jobs run as root: no free uid to lease for every slot");
  }
}

void SlotPool::resandbox(SandboxSettings& sandbox, const std::string& cache_root) {
  apply_lease(sandbox);
  for (size_t i = 0; i < slots_.size(); ++i) slots_[i]->set_sandbox(sandbox.for_slot(static_cast<int>(i), cache_root));
}

void SlotPool::ask_to_leave() {
  for (auto& slot : slots_) slot->ask_to_leave();
  for (auto& slot : sanitizer_slots_) slot->ask_to_leave();
}

}  // namespace keval
