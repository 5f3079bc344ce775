#include "engine/resume/shard.h"

#include <charconv>
#include <fstream>
#include <stdexcept>

#include "submission/content_hash.h"

namespace keval {
namespace {

bool parse_int(const std::string& text, int& value) {
  if (text.empty()) return false;
  auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  return error == std::errc() && end == text.data() + text.size();
}

}  // namespace

Shard parse_shard(const std::string& text) {
  const auto slash = text.find('/');
  Shard shard;
  if (slash == std::string::npos || !parse_int(text.substr(0, slash), shard.index) ||
      !parse_int(text.substr(slash + 1), shard.count)) {
    throw std::invalid_argument("--shard \"" + text + "\": expected I/N, e.g. 0/4");
  }
  if (shard.count < 1 || shard.index < 0 || shard.index >= shard.count) {
    throw std::invalid_argument("--shard \"" + text + "\": I must be in 0.." + std::to_string(shard.count - 1) +
                                " and N at least 1");
  }
  return shard;
}

int shard_of(const Submission& submission, int count) {
  // The hash is sha256 hex; its first 16 digits are as uniform as any.
  uint64_t value = 0;
  const std::string& hash = submission.hash;
  for (size_t i = 0; i < 16 && i < hash.size(); ++i) {
    const char c = hash[i];
    const int digit = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : 0;
    value = value * 16 + static_cast<uint64_t>(digit);
  }
  return static_cast<int>(value % static_cast<uint64_t>(count));
}

std::vector<Submission> select_shard(const std::vector<Submission>& all, const Shard& shard) {
  std::vector<Submission> selected;
  for (const auto& s : all) {
    if (shard_of(s, shard.count) == shard.index) selected.push_back(s);
  }
  return selected;
}

std::string submissions_fingerprint(const std::vector<Submission>& all) {
  std::string listing;
  for (const auto& s : all) listing += s.id + "\t" + s.hash + "\n";
  return sha256_hex(listing);
}

void write_shard_file(const std::filesystem::path& out, const Shard& shard, const std::string& submissions,
                      const std::string& fingerprint, size_t selected, size_t total) {
  std::filesystem::create_directories(out);
  nlohmann::json j = {{"shard", shard.label()}, {"index", shard.index}, {"count", shard.count},
                      {"submissions", submissions}, {"submissions_sha256", fingerprint},
                      {"selected", selected}, {"total", total}};
  std::ofstream(out / "shard.json") << j.dump(2) << "\n";
}

ShardFile read_shard_file(const std::filesystem::path& out) {
  const auto path = out / "shard.json";
  std::ifstream in(path);
  if (!in) return {};
  ShardFile file;
  try {
    const auto j = nlohmann::json::parse(in);
    file.shard = parse_shard(j.at("shard").get<std::string>());
    file.submissions = j.value("submissions", "");
    file.fingerprint = j.value("submissions_sha256", "");
  } catch (const std::exception& e) {
    throw std::runtime_error(path.string() + ": field \"shard\": " + e.what());
  }
  return file;
}

}  // namespace keval
