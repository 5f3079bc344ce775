#include "submission/submission.h"

#include <utility>

#include "submission/content_hash.h"

namespace keval {

Submission usable_submission(std::string task, std::string code, std::string id,
                             std::string origin) {
  Submission s;
  s.hash = sha256_hex(task + '\n' + code);
  s.id = id.empty() ? s.hash.substr(0, kDefaultIdLength) : std::move(id);
  s.task = std::move(task);
  s.code = std::move(code);
  s.origin = std::move(origin);
  return s;
}

Submission bad_submission(std::string task, std::string id, std::string origin,
                          std::string error, std::string_view raw_text) {
  Submission s;
  s.hash = sha256_hex(raw_text);
  s.id = id.empty() ? s.hash.substr(0, kDefaultIdLength) : std::move(id);
  s.task = std::move(task);
  s.origin = std::move(origin);
  s.error = std::move(error);
  return s;
}

}  // namespace keval
