#pragma once
// The real BatchEvaluator: each batch is one run_session into the server's --out, so every
// evaluation lands in OUT/keval.db and one judged before (same evaluation key: the same code,
// task, preset and settings) is answered from there without running again. The device probe
// and the worker slots of the first batch stay warm for the next ones.
#include <memory>
#include <ostream>

#include "engine/session/run_session.h"
#include "serve/batch_evaluator.h"
#include "suite/suite.h"

namespace keval {

class RunBatchEvaluator : public BatchEvaluator {
 public:
  // `base`: the server's run options (out, device, jobs, python, sandbox, timeout).
  // `gates`: the GPUs' gates, shared by every lane of the server.
  RunBatchEvaluator(const Suite& suite, RunOptions base, std::ostream& log, std::shared_ptr<GpuGates> gates = nullptr)
      : suite_(suite), base_(std::move(base)), log_(log) {
    warm_.gates = std::move(gates);
  }
  std::vector<nlohmann::json> evaluate(const std::vector<Submission>& batch, const Preset& preset,
                                       const EachResult& on_each) override;
  nlohmann::json describe() const override;

 private:
  const Suite& suite_;
  RunOptions base_;
  std::ostream& log_;
  nlohmann::json environment_;  // the last batch's
  WarmEngine warm_;
};

}  // namespace keval
