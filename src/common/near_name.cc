#include "common/near_name.h"

#include <algorithm>
#include <numeric>

namespace keval {

int edit_distance(std::string_view a, std::string_view b) {
  std::vector<int> row(b.size() + 1);
  std::iota(row.begin(), row.end(), 0);
  for (size_t i = 1; i <= a.size(); ++i) {
    int diagonal = row[0];
    row[0] = static_cast<int>(i);
    for (size_t j = 1; j <= b.size(); ++j) {
      int above = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diagonal = above;
    }
  }
  return row[b.size()];
}

std::string nearest_name(std::string_view name, const std::vector<std::string>& candidates) {
  const int limit = std::max<int>(2, static_cast<int>(name.size()) / 3);
  std::string best;
  int best_distance = limit + 1;
  for (const auto& candidate : candidates) {
    int distance = edit_distance(name, candidate);
    if (distance < best_distance) {
      best_distance = distance;
      best = candidate;
    }
  }
  return best;
}

std::string did_you_mean(std::string_view name, const std::vector<std::string>& candidates) {
  std::string near = nearest_name(name, candidates);
  return near.empty() ? "" : " (did you mean \"" + near + "\"?)";
}

}  // namespace keval

namespace keval {

std::vector<std::string> near_names(std::string_view pattern, const std::vector<std::string>& candidates,
                                    size_t most) {
  std::string bare;
  for (char c : pattern) {
    if (c != '*' && c != '?' && c != '[' && c != ']') bare += c;
  }
  const int limit = std::max<int>(2, static_cast<int>(bare.size()) / 3);
  std::vector<std::pair<int, std::string>> scored;
  for (const auto& candidate : candidates) {
    int distance = edit_distance(bare, candidate);
    if (!bare.empty() && candidate.find(bare) != std::string::npos) distance = 0;
    if (distance <= limit) scored.emplace_back(distance, candidate);
  }
  std::stable_sort(scored.begin(), scored.end(),
                   [](const auto& a, const auto& b) { return a.first < b.first; });
  std::vector<std::string> out;
  for (size_t i = 0; i < scored.size() && i < most; ++i) out.push_back(scored[i].second);
  return out;
}

std::string comma_joined(const std::vector<std::string>& names) {
  std::string out;
  for (const auto& name : names) out += (out.empty() ? "" : ", ") + name;
  return out;
}

}  // namespace keval
