#pragma once
// keval serve's HTTP layer (cpp-httplib): routes to Service calls, the bearer token, the body
// limit, TLS. The only file that sees httplib.
#include <cstddef>
#include <string>

#include "serve/service.h"

namespace keval {

struct HttpOptions {
  std::string host = "127.0.0.1";
  int port = 8000;
  size_t max_body = 1 << 20;
  std::string token;      // required as "Authorization: Bearer TOKEN" on /v1/ except health; "" = none
  std::string cert_file;  // both set: HTTPS
  std::string key_file;
  int threads = 128;      // connections served at once (clients wait on POST /v1/evaluate)
  // Connections held at once, served or waiting for a thread; one more is answered 503
  // (/v1/health and /metrics as usual). 0: four times `threads`.
  size_t max_connections = 0;
};

// Serves until SIGINT or SIGTERM (the batch in progress ends first; a killed server resumes
// its queue when started again). Throws std::runtime_error when it cannot listen.
void serve_http(Service& service, const HttpOptions& options);

}  // namespace keval
