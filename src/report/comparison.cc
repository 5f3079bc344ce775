#include "report/comparison.h"

#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <stdexcept>

#include "report/generation_summary.h"
#include "report/speedup_format.h"

namespace keval {
namespace {

std::vector<SubmissionResult> read_results(const std::filesystem::path& run) {
  const auto path = std::filesystem::is_directory(run) ? run / "results.jsonl" : run;
  std::ifstream in(path);
  if (!in) throw std::runtime_error(path.string() + ": no such file (compare takes `keval run` output folders)");
  std::vector<SubmissionResult> results;
  std::string line;
  for (int number = 1; std::getline(in, line); ++number) {
    if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
    const auto object = nlohmann::json::parse(line, nullptr, false);
    if (object.is_discarded() || !object.is_object() || !object.contains("verdict")) {
      throw std::runtime_error(path.string() + ":" + std::to_string(number) + ": not a result object (invalid JSON or no \"verdict\")");
    }
    results.push_back(SubmissionResult::from_json(object));
  }
  if (results.empty()) throw std::runtime_error(path.string() + ": no results");
  return results;
}

std::string run_name(const std::filesystem::path& run) {
  auto path = run;
  if (!std::filesystem::is_directory(path)) path = path.parent_path();
  auto name = std::filesystem::weakly_canonical(path).filename().string();
  return name.empty() ? run.string() : name;
}

std::string model_of(const SubmissionResult& r) {
  if (!r.generation.is_object()) return "";
  auto it = r.generation.find("model");
  return it != r.generation.end() && it->is_string() ? it->get<std::string>() : "";
}

std::string cell(const nlohmann::json& value, int digits = 3) {
  if (!value.is_number()) return "–";
  std::ostringstream out;
  out.precision(digits);
  out << std::fixed << value.get<double>();
  return out.str();
}

// The largest k every entry has a pass@k for (1 when they share nothing more).
std::string common_k(const nlohmann::json& entries) {
  int best = 1;
  for (const auto& [k, value] : entries.at(0)["pass_at_k"].items()) {
    bool everywhere = true;
    for (const auto& e : entries) everywhere = everywhere && e["pass_at_k"].contains(k);
    if (everywhere) best = std::max(best, std::stoi(k));
  }
  return std::to_string(best);
}

}  // namespace

std::vector<ComparedEntry> load_compared_entries(const std::vector<std::filesystem::path>& runs) {
  std::vector<ComparedEntry> entries;
  std::map<std::string, int> label_count;
  std::vector<std::pair<std::string, std::string>> names;  // (run, model) per entry
  for (const auto& run : runs) {
    std::map<std::string, std::vector<SubmissionResult>> by_model;
    for (auto& r : read_results(run)) by_model[model_of(r)].push_back(std::move(r));
    for (auto& [model, results] : by_model) {
      names.emplace_back(run_name(run), model);
      entries.push_back({model.empty() ? run_name(run) : model, std::move(results)});
      ++label_count[entries.back().label];
    }
  }
  for (size_t i = 0; i < entries.size(); ++i) {
    if (label_count[entries[i].label] > 1 && !names[i].second.empty()) entries[i].label = names[i].first + ":" + names[i].second;
  }
  return entries;
}

nlohmann::json comparison_json(const std::vector<ComparedEntry>& entries) {
  nlohmann::json rows = nlohmann::json::array();
  nlohmann::json tasks = nlohmann::json::object();
  for (const auto& entry : entries) {
    std::vector<const SubmissionResult*> all;
    std::map<std::string, std::vector<const SubmissionResult*>> by_task;
    for (const auto& r : entry.results) {
      all.push_back(&r);
      by_task[r.task].push_back(&r);
    }
    nlohmann::json row = sample_figures(all);
    row["label"] = entry.label;
    rows.push_back(row);
    for (const auto& [task, members] : by_task) {
      int passes = 0;
      std::optional<double> best;
      for (const auto* r : members) {
        passes += r->exec();
        if (r->exec() && r->speedup && (!best || *r->speedup > *best)) best = r->speedup;
      }
      tasks[task][entry.label] = {{"n", members.size()}, {"passes", passes},
                                  {"best_speedup", best ? nlohmann::json(*best) : nlohmann::json(nullptr)}};
    }
  }
  return {{"entries", rows}, {"tasks", tasks}};
}

std::string comparison_markdown(const nlohmann::json& comparison) {
  const auto& entries = comparison.at("entries");
  std::ostringstream out;
  if (entries.empty()) return "";
  const std::string k = common_k(entries);
  out << "| model or run | n | tasks | pass@1 | pass@" << k
      << " | fast_1 | fast_1.5 | geomean speedup (95% CI) | CodeBLEU | MI | tokens/pass | cost/pass (USD) | gen s/pass |\n"
      << "|---|---|---|---|---|---|---|---|---|---|---|---|---|\n";
  for (const auto& e : entries) {
    const auto& ci = e["geomean_speedup_ci"];
    const std::string speedup = e["geomean_speedup"].is_number()
        ? cell(e["geomean_speedup"]) + (ci.is_array() ? " (" + cell(ci[0]) + "–" + cell(ci[1]) + ")" : "")
        : "–";
    out << "| " << e["label"].get<std::string>() << " | " << e["n"] << " | " << e["tasks"] << " | "
        << cell(e["pass_at_k"].value("1", nlohmann::json())) << " | " << cell(e["pass_at_k"].value(k, nlohmann::json()))
        << " | " << cell(e["fast_p"]["1"]) << " | " << cell(e["fast_p"]["1.5"]) << " | " << speedup << " | "
        << cell(e["code_metrics"]["codebleu_mean"]) << " | " << cell(e["code_metrics"]["maintainability_index_mean"], 1)
        << " | " << cell(e["tokens_per_pass"], 0) << " | " << cell(e["cost_usd_per_pass"], 4) << " | "
        << cell(e["generation_s_per_pass"], 1) << " |\n";
  }
  out << "\nPer task: passes/samples (best speedup)\n\n| task |";
  for (const auto& e : entries) out << " " << e["label"].get<std::string>() << " |";
  out << "\n|---|";
  for (size_t i = 0; i < entries.size(); ++i) out << "---|";
  out << "\n";
  for (const auto& [task, per_entry] : comparison.at("tasks").items()) {
    out << "| " << task << " |";
    for (const auto& e : entries) {
      const auto label = e["label"].get<std::string>();
      if (!per_entry.contains(label)) {
        out << " – |";
        continue;
      }
      const auto& c = per_entry[label];
      out << " " << c["passes"] << "/" << c["n"];
      if (c["best_speedup"].is_number()) out << " (" << format_speedup(c["best_speedup"].get<double>()) << "×)";
      out << " |";
    }
    out << "\n";
  }
  return out.str();
}

}  // namespace keval
