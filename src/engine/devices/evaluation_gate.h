#pragma once
// The evaluation gate: how many evaluations may run on one GPU at once. Each evaluation passes
// it with a share (EvaluationGateShare) before its jobs pass the device gate (device_gate.h).
// Unlimited (every slot of the GPU) until a job there runs out of device memory beside the
// others and then fits alone; then half of those that were running when it asked to be alone
// (at least one), halving again at each later such retry. Each running evaluation's processes
// hold device memory (inputs, outputs, caches), so a suite whose inputs are large (KernelBench:
// up to 6 GiB a tensor) goes on with fewer of them at once instead of failing again. The limit
// grows back by one after every kEndsBeforeGrowing evaluations that end with no new shrink, and
// is lifted once it reaches the most that ever ran at once: a suite's large tasks come in runs
// (KernelBench level 1's 6 GiB activations), and on the H200 a limit of one kept for the rest
// of a run judged 12 problems in 281 s.
#include <condition_variable>
#include <mutex>

namespace keval {

class EvaluationGate {
 public:
  void begin();  // waits while the limit is reached or an evaluation waits to be alone
  void end();
  // From within a running evaluation: waits until it is the only one running on the GPU (every
  // other has ended, none starts), for an out-of-memory retry. Pausing the others is not
  // enough: a paused job keeps its device memory (a KernelBench retry "alone" once ran
  // out beside paused jobs holding 19, 19 and 65 GiB). Two at once take turns.
  void begin_alone();
  void end_alone();
  // After an out-of-memory job: the new limit (fewer evaluations at once from now on).
  int shrink();
  static constexpr int kEndsBeforeGrowing = 8;
  int limit() const;          // 0: unlimited
  int out_of_memory() const;  // how many times shrink() was called (retries that fit alone)

  // Who runs and who waits, now: lets a test wait until an evaluation has reached the gate
  // instead of guessing how long its thread takes to get there.
  struct State {
    int running = 0;
    int waiting = 0;        // in begin(), held back
    int waiting_alone = 0;  // in begin_alone()
    bool alone = false;
  };
  State state() const;

 private:
  mutable std::mutex mutex_;
  std::condition_variable changed_;
  int running_ = 0;
  int waiting_ = 0;     // in begin(), held back
  int limit_ = 0;
  int shrinks_ = 0;
  int crowd_ = 0;       // running when the last evaluation asked to be alone
  int most_ = 0;        // the most that ran at once before the first shrink
  int clean_ends_ = 0;  // evaluations ended since the last shrink or growth
  int waiting_alone_ = 0;
  bool alone_ = false;
};

// Holds one evaluation's turn alone on its GPU for its scope (no gate: nothing to wait for).
class EvaluationGateAlone {
 public:
  explicit EvaluationGateAlone(EvaluationGate* gate) : gate_(gate) { if (gate_) gate_->begin_alone(); }
  ~EvaluationGateAlone() { if (gate_) gate_->end_alone(); }
  EvaluationGateAlone(const EvaluationGateAlone&) = delete;
  EvaluationGateAlone& operator=(const EvaluationGateAlone&) = delete;

 private:
  EvaluationGate* gate_;
};

// Holds one evaluation's place among those running on its GPU for its scope.
class EvaluationGateShare {
 public:
  explicit EvaluationGateShare(EvaluationGate& gate) : gate_(gate) { gate_.begin(); }
  ~EvaluationGateShare() { gate_.end(); }
  EvaluationGateShare(const EvaluationGateShare&) = delete;
  EvaluationGateShare& operator=(const EvaluationGateShare&) = delete;

 private:
  EvaluationGate& gate_;
};

}  // namespace keval
