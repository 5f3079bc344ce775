#pragma once
// The route a request is counted under in /metrics: a route template or "unrouted", never the
// path as sent. A raw path let anyone inject series (a path holding `"} 1\n...`), and each odd
// path added one.
#include <string>

namespace keval {

// "GET /v1/jobs/{id}" for GET /v1/jobs/abc; "GET unrouted" for a path no route serves; an
// unusual method is "OTHER".
std::string route_label(const std::string& method, const std::string& path);

}  // namespace keval
