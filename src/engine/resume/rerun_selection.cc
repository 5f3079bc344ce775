#include "engine/resume/rerun_selection.h"

#include <sstream>
#include <stdexcept>
#include <vector>

#include "common/near_name.h"

namespace keval {
namespace {

std::vector<std::string> split_commas(const std::string& text) {
  std::vector<std::string> parts;
  std::stringstream in(text);
  for (std::string part; std::getline(in, part, ',');) {
    if (!part.empty()) parts.push_back(part);
  }
  return parts;
}

std::vector<std::string> verdict_names() {
  std::vector<std::string> names;
  for (Verdict v : all_verdicts()) names.emplace_back(verdict_name(v));
  return names;
}

}  // namespace

RerunSelection RerunSelection::parse(const std::string& spec, const Suite& suite) {
  RerunSelection selection;
  if (spec.empty()) return selection;
  if (spec == "all") {
    selection.all_ = true;
    return selection;
  }
  const std::vector<std::string> parts = split_commas(spec);
  size_t verdicts = 0;
  for (const auto& part : parts) verdicts += verdict_from_name(part).has_value();
  if (verdicts == parts.size() && verdicts > 0) {
    selection.verdicts_.insert(parts.begin(), parts.end());
    return selection;
  }
  if (verdicts > 0) {
    throw std::runtime_error("--rerun \"" + spec + "\": give either verdicts (crash,timeout) or task globs, not both");
  }
  for (const Task* task : suite.select(spec)) selection.tasks_.insert(task->name);
  if (selection.tasks_.empty()) {
    std::vector<std::string> names = suite.names();
    const std::vector<std::string> verdict_list = verdict_names();
    names.insert(names.end(), verdict_list.begin(), verdict_list.end());
    const auto near = near_names(parts.empty() ? spec : parts.front(), names);
    throw std::runtime_error("--rerun \"" + spec + "\" is not \"all\", a verdict or a task glob that matches a task" +
                             (near.empty() ? std::string() : " (near: " + comma_joined(near) + ")"));
  }
  return selection;
}

bool RerunSelection::wants(const SubmissionResult& stored) const {
  return all_ || verdicts_.count(std::string(verdict_name(stored.judgement.verdict))) ||
         tasks_.count(stored.task);
}

}  // namespace keval
