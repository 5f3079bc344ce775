#pragma once
// Faults of keval or of the machine, told apart from the submission's own: a job whose sandbox
// could not be set up (before the submission's code ran), a job that could not write outputs
// into keval's work folder (disk full, read-only, no permission), or a reference job that
// failed (it never loads the submission). Such an evaluation gets no verdict: it is not stored, the run
// reports it and exits non-zero, and the next run judges the submission again. Everything
// the submission's process could have caused stays the judge's to decide (crash and the like).
#include <optional>
#include <stdexcept>
#include <string>

#include "facts/evaluation_facts.h"

namespace keval {

// Thrown for one evaluation when harness_fault() found one; the run records it, never stores it.
class HarnessFault : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// The one-line reason when the facts show a harness fault; nullopt when the judge decides.
std::optional<std::string> harness_fault(const EvaluationFacts& facts);

}  // namespace keval
