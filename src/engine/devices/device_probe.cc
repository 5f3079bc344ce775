#include "engine/devices/device_probe.h"

namespace keval {
namespace {

nlohmann::json run_probe(WorkerSlot& slot, const std::string& device,
                         const std::filesystem::path& work_dir) {
  std::filesystem::create_directories(work_dir);
  // The probe runs only keval's own code; it tests the sandbox's capabilities itself.
  nlohmann::json request = {{"op", "probe"}, {"device", device}, {"gpu", 0},
                            {"work_dir", std::filesystem::absolute(work_dir).string()},
                            {"sandbox", {{"enabled", false}}}};
  JobOutcome outcome = slot.run(request, std::chrono::seconds(120));
  std::string fault;
  for (const nlohmann::json* probe : outcome.of_type("probe")) {
    // read as it came (the run's environment records it), once its fields are typed
    const Parsed<ProbeMessage> parsed = parse_as<ProbeMessage>(*probe);
    if (parsed.message) return *probe;
    fault = parsed.fault;
  }
  throw HarnessError("the runner's device probe failed (" +
                     (!fault.empty() ? fault : outcome.stderr_tail.empty() ? std::string("no output") : outcome.stderr_tail) +
                     ")");
}

}  // namespace

ProbedDevice probe_device(const std::string& requested, RunnerConfig config,
                          const std::filesystem::path& work_dir) {
  if (requested != "auto" && requested != "cpu" && requested != "cuda") {
    throw HarnessError("--device: \"" + requested + "\" is not one of auto, cpu, cuda");
  }
  ProbedDevice result;
  config.interpret = requested == "cpu";
  result.first_slot = std::make_unique<WorkerSlot>(config);
  result.first_slot->start();
  result.probe = run_probe(*result.first_slot, requested, work_dir);
  const bool cuda = result.probe.value("cuda", false);
  if (requested == "cuda" && !cuda) {
    throw HarnessError("--device cuda: no CUDA device is visible to " + config.python);
  }
  result.device = (requested == "cpu" || !cuda) ? "cpu" : "cuda";
  if (result.device == "cpu" && !config.interpret) {
    // Triton reads TRITON_INTERPRET when kernels are defined: restart the zygote with it.
    config.interpret = true;
    result.first_slot = std::make_unique<WorkerSlot>(config);
    result.first_slot->start();
  }
  return result;
}

}  // namespace keval
