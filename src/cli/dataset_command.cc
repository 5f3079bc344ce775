// keval dataset export|import: the latency dataset in makora's form (docs/dataset.md).
#include <unistd.h>

#include <fstream>
#include <iostream>

#include "cli/commands.h"
#include "cli/dataset_tool.h"
#include "store/dataset_records.h"

namespace keval {
namespace {

std::filesystem::path store_of(const std::string& from) {
  std::filesystem::path path = from;
  if (std::filesystem::is_directory(path)) path /= "keval.db";
  if (!std::filesystem::exists(path)) {
    throw std::runtime_error(path.string() + ": no such file (--from names a keval run's output folder or its keval.db)");
  }
  return path;
}

// The records of every store, as JSON lines in a file the Python side reads.
std::filesystem::path write_records(const std::vector<std::string>& from, std::vector<std::string>& sources,
                                    size_t& count) {
  auto path = std::filesystem::temp_directory_path() / ("keval-records-" + std::to_string(::getpid()) + ".jsonl");
  std::ofstream out(path);
  for (const auto& folder : from) {
    const auto db = store_of(folder);
    sources.push_back(std::filesystem::absolute(db).string());
    for (const auto& record : read_dataset_records(db)) {
      out << record.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) << "\n";
      ++count;
    }
  }
  if (!out) throw std::runtime_error(path.string() + ": cannot write the records");
  return path;
}

void add_export(CLI::App& dataset, CommandAction& action) {
  auto* cmd = dataset.add_subcommand("export", "write train and test in makora's columns (+ provenance)");
  auto from = std::make_shared<std::vector<std::string>>();
  auto out = std::make_shared<std::string>();
  auto format = std::make_shared<std::string>("parquet");
  auto split = std::make_shared<std::string>("makora");
  auto seed = std::make_shared<int>(17);
  auto force = std::make_shared<bool>(false);
  auto suites = std::make_shared<std::vector<std::string>>();
  auto retime = std::make_shared<std::string>();
  auto near = std::make_shared<std::string>();
  auto python = std::make_shared<std::string>();
  cmd->add_option("--from", *from, "keval run output folders (or keval.db files)")->required()->expected(1, -1);
  cmd->add_option("--out", *out, "folder for train/test, manifest.json and README.md (the card)")->required();
  cmd->add_option("--format", *format, "parquet (default) or jsonl")->check(CLI::IsMember({"parquet", "jsonl"}));
  cmd->add_option("--split", *split, "the split rule: makora (docs/dataset.md)")->check(CLI::IsMember({"makora"}));
  cmd->add_option("--seed", *seed, "seed of the split (default 17)");
  cmd->add_flag("--force", *force, "replace an existing export in --out");
  cmd->add_option("--suite", *suites,
                  "keval-format suite folders whose references wrap the rows' code (default: suites/<name>)")
      ->check(CLI::ExistingDirectory);
  cmd->add_option("--retime", *retime, "an export of a second timing of the same programs: widens each label's interval")
      ->check(CLI::ExistingDirectory);
  cmd->add_option("--near-threshold", *near, "Jaccard similarity from which two tasks' programs are near copies (default 0.7)");
  cmd->add_option("--python", *python, "Python interpreter (default: $KEVAL_PYTHON, else python3)");
  cmd->callback([=, &action] {
    action = [=] {
      use_python(*python);
      std::vector<std::string> sources;
      size_t count = 0;
      const auto records = write_records(*from, sources, count);
      std::vector<std::string> args = {"export", "--records", records.string(), "--out", *out,
                                       "--format", *format, "--seed", std::to_string(*seed)};
      if (*force) args.push_back("--force");
      if (!retime->empty()) args.insert(args.end(), {"--retime", std::filesystem::absolute(*retime).string()});
      if (!near->empty()) args.insert(args.end(), {"--near-threshold", *near});
      for (const auto& source : sources) args.insert(args.end(), {"--source", source});
      for (const auto& suite : *suites) args.insert(args.end(), {"--suite", std::filesystem::absolute(suite).string()});
      try {
        run_dataset_tool(args);
      } catch (...) {
        std::filesystem::remove(records);
        throw;
      }
      std::filesystem::remove(records);
      std::cerr << "keval: " << count << " records from " << sources.size() << " store(s) -> " << *out << "\n";
      return 0;
    };
  });
}

void add_import(CLI::App& dataset, CommandAction& action) {
  auto* cmd = dataset.add_subcommand("import", "makora rows -> submissions of KernelBench-format problems");
  auto file = std::make_shared<std::string>();
  auto out = std::make_shared<std::string>();
  auto problems = std::make_shared<std::string>();
  auto sample = std::make_shared<int>(0);
  auto seed = std::make_shared<int>(17);
  auto python = std::make_shared<std::string>();
  cmd->add_option("file", *file, "a makora Parquet file (or .jsonl with its columns)")->required();
  cmd->add_option("--out", *out, "submissions JSONL to write")->required();
  cmd->add_option("--problems", *problems, "KernelBench-layout folder for the problems (default: OUT without .jsonl + -problems)");
  cmd->add_option("--sample", *sample, "a seeded sample of this many rows (default: all)")->check(CLI::Range(0, 1 << 30));
  cmd->add_option("--seed", *seed, "seed of the sample (default 17)");
  cmd->add_option("--python", *python, "Python interpreter (default: $KEVAL_PYTHON, else python3)");
  cmd->callback([=, &action] {
    action = [=] {
      use_python(*python);
      std::vector<std::string> args = {"import", "--file", *file, "--out", *out,
                                       "--sample", std::to_string(*sample), "--seed", std::to_string(*seed)};
      if (!problems->empty()) args.insert(args.end(), {"--problems", *problems});
      run_dataset_tool(args);
      return 0;
    };
  });
}

}  // namespace

void add_dataset_command(CLI::App& app, CommandAction& action) {
  auto* dataset = app.add_subcommand("dataset", "the latency dataset: export, import (docs/dataset.md)");
  dataset->require_subcommand(1);
  add_export(*dataset, action);
  add_import(*dataset, action);
}

}  // namespace keval
