#pragma once
// keval serve's connections against its file-descriptor limit (ulimit -n). Each connection it
// holds is a descriptor, and so is each of its stores, logs and runner pipes: a server that
// admits more connections than the limit leaves room for fails where nobody sees why (accept()
// stalls, SQLite cannot open its WAL, a runner cannot start). So --max-connections is fitted
// to the limit at start, or the server refuses to start.
#include <cstddef>
#include <string>
#include <vector>

namespace keval {

struct DescriptorNeeds {
  size_t lanes = 1;
  size_t slots = 2;  // worker slots of every lane and GPU together
};

// Descriptors the server holds besides the connections it admits: an estimate with room, counted
// in the .cc from what the code opens.
size_t descriptors_besides_connections(const DescriptorNeeds& needs);

// The GPUs a server's slots may spread over before its first run probes them: `--gpus`, else
// none for `--device cpu`, else the devices the NVIDIA driver shows (/dev/nvidiaN); at least 1.
size_t gpus_at_most(const std::string& device, const std::vector<int>& gpus);

// Raises the soft RLIMIT_NOFILE to the hard limit when it is below `wanted` (never lowers it);
// returns the soft limit then in force.
size_t raise_descriptor_limit(size_t wanted);

// The connections to admit under `limit` descriptors when `reserve` of them are needed otherwise.
// `asked` 0 is the default, `default_max`, clamped to what fits; `note` then says so (empty when
// nothing was clamped). An `asked` that does not fit, or a limit with no room for one connection:
// std::runtime_error, one line naming --max-connections and the limit.
size_t fit_max_connections(size_t asked, size_t default_max, size_t limit, size_t reserve, std::string& note);

}  // namespace keval
