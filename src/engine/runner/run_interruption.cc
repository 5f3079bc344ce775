#include "engine/runner/run_interruption.h"

#include <signal.h>
#include <unistd.h>

#include <atomic>

namespace keval {
namespace {

// Set from the signal handler, read by every slot's thread: lock-free, so safe in a handler.
std::atomic<bool> interrupted{false};
static_assert(std::atomic<bool>::is_always_lock_free);

struct sigaction handler_before {};

void on_interrupt(int signal) {
  if (interrupted.exchange(true)) {  // the second Ctrl-C: quit at once
    ::signal(signal, SIG_DFL);
    ::raise(signal);
    return;
  }
  static const char kSaid[] =
      "\nkeval: interrupted; ending the running jobs and writing what finished (Ctrl-C again to quit at once)\n";
  (void)!::write(STDERR_FILENO, kSaid, sizeof kSaid - 1);
}

}  // namespace

RunInterruption::RunInterruption() {
  interrupted = false;
  struct sigaction action {};
  action.sa_handler = on_interrupt;
  action.sa_flags = SA_RESTART;  // the threads' blocking calls go on; they poll the flag
  sigemptyset(&action.sa_mask);
  ::sigaction(SIGINT, &action, &handler_before);
}

RunInterruption::~RunInterruption() {
  ::sigaction(SIGINT, &handler_before, nullptr);
  interrupted = false;
}

bool run_interrupted() { return interrupted.load(); }

}  // namespace keval
