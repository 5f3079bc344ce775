#include "serve/run_batch_evaluator.h"

#include <map>
#include <stdexcept>

#include "engine/settings/run_paths.h"
#include "serve/preset.h"

namespace keval {

std::vector<nlohmann::json> RunBatchEvaluator::evaluate(const std::vector<Submission>& batch, const Preset& preset,
                                                        const EachResult& on_each) {
  RunOptions options = with_preset(base_, preset);
  options.progress = false;
  options.submissions_label = "keval serve (preset " + preset.name + ")";
  std::map<std::string, size_t> index_of;  // origin -> place in the batch
  for (size_t i = 0; i < batch.size(); ++i) index_of[batch[i].origin] = i;
  const ResultListener tell = [&](const SubmissionResult& result) {
    if (auto it = index_of.find(result.origin); it != index_of.end() && on_each) on_each(it->second, result.to_json());
  };
  RunOutput output;
  try {
    output = run_session(suite_, batch, options, log_, &warm_, tell);
  } catch (const std::exception& e) {
    // the jobs' error, answered over HTTP: no folder of this machine in it
    throw std::runtime_error(run_paths(options, suite_).relative(e.what()));
  }
  environment_ = output.summary.value("environment", nlohmann::json(nullptr));
  std::map<std::string, nlohmann::json> by_origin;
  for (const auto& r : output.results) by_origin[r.origin] = r.to_json();
  std::vector<nlohmann::json> results;
  for (const auto& s : batch) {
    auto it = by_origin.find(s.origin);
    if (it == by_origin.end()) {
      std::string why;  // a harness error leaves a submission unjudged (run_session.h)
      for (const auto& error : output.harness_errors) {
        if (error.value("origin", "") == s.origin) why = ": harness error: " + error.value("reason", "");
      }
      throw std::runtime_error(run_paths(options, suite_).relative("the run gave no result for " + s.origin + why));
    }
    results.push_back(it->second);
  }
  return results;
}

nlohmann::json RunBatchEvaluator::describe() const {
  return {{"device", base_.device}, {"jobs", base_.jobs > 0 ? nlohmann::json(base_.jobs) : nlohmann::json("auto")}, {"timing", base_.timing},
          {"environment", environment_}};
}

}  // namespace keval
