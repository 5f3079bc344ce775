#define CPPHTTPLIB_OPENSSL_SUPPORT
#include "serve/http_server.h"

#include <httplib.h>
#include <signal.h>

#include <chrono>
#include <iostream>
#include <memory>
#include <optional>
#include <stdexcept>
#include <thread>

#include "serve/connection_limit.h"
#include "serve/connection_reaper.h"
#include "serve/route_label.h"

namespace keval {
namespace {

constexpr int kKeepAliveSeconds = 5;
constexpr int kReadTimeoutSeconds = 10;
constexpr int kHeaderDeadlineSeconds = 10;
// Connections over the limit go to threads of their own (kRefusingThreads, connection_limit.h),
// so a refusal never waits behind the connections held; those beyond what they can take are
// closed at once.

// Set on the threads that answer connections over the limit.
thread_local bool over_the_connection_limit = false;

// httplib's task queue, one task per connection (it reads and answers the connection's
// requests, then closes it): within `limit` a task goes to the pool of HTTP threads and counts
// until it ends; over it, to the refusing threads.
class LimitedConnections final : public httplib::TaskQueue {
 public:
  LimitedConnections(ConnectionLimit& limit, size_t threads)
      : limit_(limit), served_(threads), refused_(kRefusingThreads, 0, kRefusalsQueued) {}

  bool enqueue(std::function<void()> connection) override {
    if (!limit_.admit()) {
      return refused_.enqueue([connection = std::move(connection)] {
        over_the_connection_limit = true;
        connection();
      });
    }
    if (served_.enqueue([this, connection = std::move(connection)] {
          connection();
          limit_.release();
        })) {
      return true;
    }
    limit_.release();  // shutting down: httplib closes it
    return false;
  }

  void shutdown() override {
    served_.shutdown();
    refused_.shutdown();
  }

 private:
  ConnectionLimit& limit_;
  httplib::ThreadPool served_;
  httplib::ThreadPool refused_;
};

void send(httplib::Response& res, int status, const nlohmann::json& body) {
  res.status = status;
  res.set_content(body.dump() + "\n", "application/json");
}

std::optional<double> wait_param(const httplib::Request& req) {
  if (!req.has_param("wait")) return std::nullopt;
  try {
    return std::max(0.0, std::min(3600.0, std::stod(req.get_param_value("wait"))));
  } catch (const std::exception&) {
    return std::nullopt;
  }
}

// The body as sent; nullopt when it is refused or cannot be read (the status is set then).
std::optional<std::string> read_body(const httplib::Request& req, httplib::Response& res,
                                     const httplib::ContentReader& reader) {
  if (req.is_multipart_form_data()) {
    send(res, 415, {{"error", "send the request as one JSON body (Content-Type: application/json)"}, {"field", "Content-Type"}});
    return std::nullopt;
  }
  std::string body;
  if (!reader([&](const char* data, size_t n) {
        body.append(data, n);
        return true;
      })) {
    if (res.status < 400) send(res, 400, {{"error", "the body could not be read to its end"}, {"field", "body"}});
    return std::nullopt;
  }
  return body;
}

}  // namespace

void serve_http(Service& service, const HttpOptions& options) {
  std::unique_ptr<httplib::Server> server;
  if (!options.cert_file.empty() || !options.key_file.empty()) {
    if (options.cert_file.empty() || options.key_file.empty()) {
      throw std::runtime_error("--tls-cert and --tls-key go together");
    }
    auto tls = std::make_unique<httplib::SSLServer>(options.cert_file.c_str(), options.key_file.c_str());
    if (!tls->is_valid()) throw std::runtime_error(options.cert_file + ", " + options.key_file + ": cannot load the TLS certificate or key");
    server = std::move(tls);
  } else {
    server = std::make_unique<httplib::Server>();
  }
  httplib::Server& http = *server;
  const auto threads = static_cast<size_t>(options.threads);
  ConnectionLimit connections(options.max_connections ? options.max_connections : 4 * threads);
  http.new_task_queue = [&connections, threads] { return new LimitedConnections(connections, threads); };
  http.set_payload_max_length(options.max_body);
  // A connection holds its thread while it waits: 5 s for a request after connecting or after
  // an answer, 10 s for each read; the reaper bounds the whole header (docs/scale.md).
  http.set_keep_alive_timeout(kKeepAliveSeconds);
  http.set_read_timeout(kReadTimeoutSeconds, 0);
  ConnectionReaper reaper(options.port, std::chrono::seconds(kHeaderDeadlineSeconds));

  // The token is checked before any body is read or asked for (100 Continue comes after it).
  // A connection over the limit gets health and metrics (quick, and what tells an operator of
  // the limit), any other request 503.
  auto refused = [&](const httplib::Request& req, httplib::Response& res) {
    const bool open = req.path == "/v1/health" || req.path == "/metrics";
    if (over_the_connection_limit && !open) {
      res.set_header("Retry-After", "1");
      send(res, 503, {{"error", "too many connections: the server holds " + std::to_string(connections.max()) +
                                    " at once (--max-connections); try again shortly"},
                      {"field", "connection"}});
      return true;
    }
    if (open || options.token.empty()) return false;
    const std::string auth = req.get_header_value("Authorization");
    if (auth == "Bearer " + options.token) return false;
    send(res, 401, {{"error", auth.empty() ? "missing token: send Authorization: Bearer TOKEN" : "wrong token"},
                    {"field", "Authorization"}});
    return true;
  };
  http.set_pre_routing_handler([&](const httplib::Request& req, httplib::Response& res) {
    reaper.request_started(ConnectionReaper::peer_name(req.remote_addr, req.remote_port));
    return refused(req, res) ? httplib::Server::HandlerResponse::Handled : httplib::Server::HandlerResponse::Unhandled;
  });
  http.set_expect_100_continue_handler([&](const httplib::Request& req, httplib::Response& res) {
    if (refused(req, res)) return res.status;
    if (req.get_header_value_u64("Content-Length") > options.max_body) {
      send(res, 413, {{"error", "body over the limit of " + std::to_string(options.max_body) + " bytes"}, {"field", "body"}});
      return res.status;
    }
    return 100;
  });
  // Errors httplib answers itself (over the body limit, no such route) get a JSON body too.
  http.set_error_handler([&](const httplib::Request& req, httplib::Response& res) {
    if (!res.body.empty()) return;
    if (res.status == 413) {
      send(res, 413, {{"error", "body over the limit of " + std::to_string(options.max_body) + " bytes"}, {"field", "body"}});
    } else if (res.status == 404) {
      send(res, 404, {{"error", "no route " + req.method + " " + req.path}, {"field", "path"}});
    } else {
      send(res, res.status, {{"error", "HTTP " + std::to_string(res.status)}, {"field", "request"}});
    }
  });
  http.set_exception_handler([](const httplib::Request&, httplib::Response& res, std::exception_ptr ep) {
    std::string what = "internal error";
    try {
      std::rethrow_exception(ep);
    } catch (const std::exception& e) {
      what = e.what();
    } catch (...) {
    }
    send(res, 500, {{"error", what}, {"field", "server"}});
  });
  http.set_logger([&](const httplib::Request& req, const httplib::Response& res) {
    reaper.request_ended(ConnectionReaper::peer_name(req.remote_addr, req.remote_port));
    service.metrics().request(route_label(req.method, req.path), res.status);
  });

  http.Get("/v1/health", [&](const httplib::Request&, httplib::Response& res) {
    const Answer a = service.health();
    send(res, a.status, a.body);
  });
  http.Get("/metrics", [&](const httplib::Request&, httplib::Response& res) {
    res.set_content(service.metrics_text() + connections.metrics_text(), "text/plain; version=0.0.4");
  });
  // POST bodies are read raw whatever their Content-Type: curl -d sends JSON as
  // application/x-www-form-urlencoded, which httplib would parse as a form, up to 8 KB only.
  http.Post("/v1/evaluate", [&](const httplib::Request& req, httplib::Response& res, const httplib::ContentReader& reader) {
    const auto body = read_body(req, res, reader);
    if (!body) return;
    const Answer a = service.evaluate(*body, req.get_header_value("Idempotency-Key"), wait_param(req));
    send(res, a.status, a.body);
  });
  http.Post("/v1/evaluate/batch", [&](const httplib::Request& req, httplib::Response& res, const httplib::ContentReader& reader) {
    const auto body = read_body(req, res, reader);
    if (!body) return;
    const Answer a = service.evaluate_batch(*body);
    send(res, a.status, a.body);
  });
  http.Get(R"(/v1/jobs/([^/]+))", [&](const httplib::Request& req, httplib::Response& res) {
    const Answer a = service.job(req.matches[1], wait_param(req).value_or(0));
    send(res, a.status, a.body);
  });
  http.Delete(R"(/v1/jobs/([^/]+))", [&](const httplib::Request& req, httplib::Response& res) {
    const Answer a = service.cancel(req.matches[1]);
    send(res, a.status, a.body);
  });

  if (!http.bind_to_port(options.host.c_str(), options.port)) {
    throw std::runtime_error("cannot listen on " + options.host + ":" + std::to_string(options.port));
  }
  // Signals are taken by one thread that stops the server; the others never see them.
  sigset_t signals;
  sigemptyset(&signals);
  sigaddset(&signals, SIGINT);
  sigaddset(&signals, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &signals, nullptr);
  std::thread stopper([&] {
    int signal = 0;
    sigwait(&signals, &signal);
    http.stop();
  });
  service.start();
  reaper.start();
  std::cerr << "keval serve: listening on " << (options.cert_file.empty() ? "http" : "https") << "://"
            << options.host << ":" << options.port << "\n";
  http.listen_after_bind();
  reaper.stop();
  service.stop();
  if (stopper.joinable()) {
    pthread_kill(stopper.native_handle(), SIGTERM);
    stopper.join();
  }
}

}  // namespace keval
