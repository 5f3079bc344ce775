#include "serve/route_label.h"

#include <array>
#include <string_view>

namespace keval {
namespace {

// Each is one HTTP route of http_server.cc; "{id}" matches one path segment.
constexpr std::array<std::string_view, 5> kRoutes = {"/v1/health", "/metrics", "/v1/evaluate", "/v1/evaluate/batch",
                                                     "/v1/jobs/{id}"};
constexpr std::array<std::string_view, 7> kMethods = {"GET", "POST", "DELETE", "PUT", "PATCH", "HEAD", "OPTIONS"};

bool matches(std::string_view route, std::string_view path) {
  const auto brace = route.find("{id}");
  if (brace == std::string_view::npos) return route == path;
  if (path.size() <= brace || path.substr(0, brace) != route.substr(0, brace)) return false;
  return path.substr(brace).find('/') == std::string_view::npos;
}

}  // namespace

std::string route_label(const std::string& method, const std::string& path) {
  std::string label = "OTHER";
  for (auto m : kMethods) {
    if (m == method) label = m;
  }
  for (auto route : kRoutes) {
    if (matches(route, path)) return label + " " + std::string(route);
  }
  return label + " unrouted";
}

}  // namespace keval
