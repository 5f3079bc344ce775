#pragma once
// How many evaluations may run on one GPU at once. Unlimited (every slot of the GPU) until a
// job there runs out of device memory beside the others and then fits alone; then half of
// those running at that moment (at least one), halving again at each later such retry. Each running evaluation's processes
// hold device memory (inputs, outputs, caches), so a suite whose inputs are large (KernelBench:
// up to 6 GiB a tensor) goes on with fewer of them at once instead of failing again.
#include <condition_variable>
#include <mutex>

namespace keval {

class EvaluationLimit {
 public:
  void begin();  // waits while the limit is reached
  void end();
  // After an out-of-memory job: the new limit (fewer evaluations at once from now on).
  int shrink();
  int limit() const;          // 0: unlimited
  int out_of_memory() const;  // how many times shrink() was called

 private:
  mutable std::mutex mutex_;
  std::condition_variable changed_;
  int running_ = 0;
  int limit_ = 0;
  int shrinks_ = 0;
};

// Holds one evaluation's place for its scope.
class EvaluationPlace {
 public:
  explicit EvaluationPlace(EvaluationLimit& limit) : limit_(limit) { limit_.begin(); }
  ~EvaluationPlace() { limit_.end(); }
  EvaluationPlace(const EvaluationPlace&) = delete;
  EvaluationPlace& operator=(const EvaluationPlace&) = delete;

 private:
  EvaluationLimit& limit_;
};

}  // namespace keval
