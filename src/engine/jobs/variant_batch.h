#pragma once
// keval sweep's variants of one task, judged and timed in `sweep` jobs: one process for many
// variants instead of three per variant (docs/dataset.md, "Sweep"). Only for code keval made
// from its own goldens: it runs without the warden/guest split (docs/trust.md).
#include <filesystem>
#include <functional>
#include <vector>

#include "engine/devices/device_gate.h"
#include "engine/runner/job_runner.h"
#include "engine/settings/run_settings.h"
#include "facts/evaluation_facts.h"
#include "submission/submission.h"
#include "suite/task.h"

namespace keval {

// One variant's messages (those tagged with its index) as the facts of a candidate, reference
// and timing job, so the one judge decides its verdict. `reached` is false for the variant a
// job died in: its candidate side then carries how the job ended.
EvaluationFacts variant_facts(const std::vector<nlohmann::json>& messages, const JobOutcome& job, bool reached);

// Hands each of `code_files`' facts to `done(index, facts)` as soon as the variant is finished
// (from the job's message hook), so a run killed midway keeps every variant finished so far. The job's work folder is work_dir/batch-K. A job
// that ends early (a device fault, a crash, its deadline) leaves the variant it was in with the
// facts of that end; the variants after it go to a new job. The job shares the device while it
// compiles and checks, and has it alone while it samples (device_gate_alone.h). Each job's `done`
// message (its phases) goes to its last finished variant only.
using VariantDone = std::function<void(size_t index, EvaluationFacts facts)>;
void evaluate_variant_batch(JobRunner& runner, const Task& task, const RunSettings& settings,
                            const std::vector<std::filesystem::path>& code_files,
                            const std::filesystem::path& work_dir, DeviceGate* device_gate,
                            const VariantDone& done);

// The same, collected: the facts of each of `code_files`, in order.
std::vector<EvaluationFacts> evaluate_variant_batch(JobRunner& runner, const Task& task,
                                                    const RunSettings& settings,
                                                    const std::vector<std::filesystem::path>& code_files,
                                                    const std::filesystem::path& work_dir, DeviceGate* device_gate);

// The pending submissions (indices into `submissions`) grouped by task, in task order, as jobs
// of 4 to 16 variants: enough jobs to keep `slots` busy, few enough that each job's set-up
// (imports, the reference's outputs, the timed inputs) serves many variants.
std::vector<std::vector<size_t>> variant_batches(const std::vector<Submission>& submissions,
                                                 const std::vector<size_t>& pending, size_t slots);

}  // namespace keval
