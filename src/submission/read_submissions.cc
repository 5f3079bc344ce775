// read_submissions: dispatch on what the path is (folder, .jsonl, .py).
#include <algorithm>
#include <iterator>
#include <stdexcept>
#include <system_error>

#include "submission/jsonl_reader.h"
#include "submission/py_file_reader.h"
#include "submission/submission.h"
#include "submission/unique_ids.h"

namespace keval {
namespace {

namespace fs = std::filesystem;

bool is_submission_file(const fs::path& path) {
  return path.extension() == ".jsonl" || path.extension() == ".py";
}

std::vector<Submission> read_submission_file(const fs::path& path) {
  if (path.extension() == ".jsonl") return read_jsonl_file(path);
  if (path.extension() == ".py") return {read_py_file(path)};
  throw std::runtime_error(path.string() + ": unsupported extension \"" +
                           path.extension().string() + "\" (want .jsonl, .py or a folder)");
}

std::vector<fs::path> submission_files_in(const fs::path& folder) {
  std::vector<fs::path> files;
  std::error_code error;
  for (fs::directory_iterator it(folder, error), end; !error && it != end; it.increment(error)) {
    std::error_code ignored;
    if (it->is_regular_file(ignored) && is_submission_file(it->path())) {
      files.push_back(it->path());
    }
  }
  if (error) {
    throw std::runtime_error(folder.string() + ": cannot list folder: " + error.message());
  }
  std::sort(files.begin(), files.end(), [](const fs::path& a, const fs::path& b) {
    return a.filename().string() < b.filename().string();
  });
  return files;
}

}  // namespace

std::vector<Submission> read_submissions(const fs::path& path) {
  std::error_code error;
  const fs::file_status status = fs::status(path, error);
  if (status.type() == fs::file_type::not_found) {
    throw std::runtime_error(path.string() + ": no such file or folder");
  }
  if (error) throw std::runtime_error(path.string() + ": cannot read: " + error.message());
  if (!fs::is_directory(status)) {
    std::vector<Submission> submissions = read_submission_file(path);
    make_ids_unique(submissions);
    return submissions;
  }

  const std::vector<fs::path> files = submission_files_in(path);
  if (files.empty()) {
    throw std::runtime_error(path.string() + ": no submissions (no .py or .jsonl file in folder)");
  }
  std::vector<Submission> submissions;
  for (const fs::path& file : files) {
    std::vector<Submission> from_file = read_submission_file(file);
    std::move(from_file.begin(), from_file.end(), std::back_inserter(submissions));
  }
  make_ids_unique(submissions);
  return submissions;
}

}  // namespace keval
