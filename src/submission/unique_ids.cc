#include "submission/unique_ids.h"

#include <map>
#include <stdexcept>

namespace keval {
namespace {

bool id_from_hash(const Submission& s) {
  return s.id.size() == kDefaultIdLength && s.hash.compare(0, kDefaultIdLength, s.id) == 0;
}

}  // namespace

void make_ids_unique(std::vector<Submission>& submissions) {
  std::map<std::string, const Submission*> first_with;
  std::map<std::string, int> repeats;
  for (Submission& s : submissions) {
    if (s.id.empty()) continue;
    auto [first, inserted] = first_with.emplace(s.id, &s);
    if (inserted) continue;
    if (!id_from_hash(s)) {
      throw std::runtime_error(s.origin + ": id \"" + s.id + "\" was already used at " + first->second->origin +
                               "; every result is addressed by its id, so ids must differ (leave \"id\" out "
                               "to get one made from the code)");
    }
    const int n = ++repeats[s.id] + 1;
    s.id += '-';
    s.id += std::to_string(n);
  }
}

}  // namespace keval
