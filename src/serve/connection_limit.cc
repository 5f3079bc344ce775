#include "serve/connection_limit.h"

#include <sstream>
#include <stdexcept>

namespace keval {

ConnectionLimit::ConnectionLimit(size_t max) : max_(max) {
  if (max == 0) throw std::invalid_argument("a connection limit of 0 would refuse every connection");
}

bool ConnectionLimit::admit() {
  size_t now = open_.load();
  do {
    if (now >= max_) {
      ++refused_;
      return false;
    }
  } while (!open_.compare_exchange_weak(now, now + 1));
  return true;
}

void ConnectionLimit::release() { --open_; }

std::string ConnectionLimit::metrics_text() const {
  std::ostringstream out;
  out << "# HELP keval_http_connections Connections held now, served or waiting for an HTTP thread.\n"
      << "# TYPE keval_http_connections gauge\n"
      << "keval_http_connections " << open_ << "\n"
      << "# HELP keval_http_connections_max Connections held at most (--max-connections).\n"
      << "# TYPE keval_http_connections_max gauge\n"
      << "keval_http_connections_max " << max_ << "\n"
      << "# HELP keval_http_connections_refused_total Connections over the limit: answered 503, or closed.\n"
      << "# TYPE keval_http_connections_refused_total counter\n"
      << "keval_http_connections_refused_total " << refused_ << "\n";
  return out.str();
}

}  // namespace keval
