#pragma once
// "Did you mean" suggestions for misspelled names (fields, tasks, options).
#include <string>
#include <string_view>
#include <vector>

namespace keval {

// Levenshtein distance, case-sensitive.
int edit_distance(std::string_view a, std::string_view b);

// The closest candidate within a distance of max(2, len/3), or "" when none is close.
std::string nearest_name(std::string_view name, const std::vector<std::string>& candidates);

// " (did you mean \"x\"?)" or "" — ready to append to an error message.
std::string did_you_mean(std::string_view name, const std::vector<std::string>& candidates);

// Up to `most` candidates near a pattern (a glob's wildcards ignored; a candidate containing
// the rest counts as nearest), closest first: for "matches nothing" messages.
std::vector<std::string> near_names(std::string_view pattern, const std::vector<std::string>& candidates,
                                    size_t most = 5);

// "a, b, c": names listed in a message.
std::string comma_joined(const std::vector<std::string>& names);

}  // namespace keval
