#include "serve/connection_limit.h"

#include <gtest/gtest.h>

#include <atomic>
#include <thread>
#include <vector>

namespace keval {
namespace {

TEST(ConnectionLimitTest, OneOverTheLimitIsRefusedUntilAnotherEnds) {
  ConnectionLimit limit(2);
  EXPECT_TRUE(limit.admit());
  EXPECT_TRUE(limit.admit());
  EXPECT_FALSE(limit.admit());
  EXPECT_EQ(limit.open(), 2u);
  EXPECT_EQ(limit.refused(), 1u);
  limit.release();
  EXPECT_TRUE(limit.admit());
  EXPECT_EQ(limit.open(), 2u);
}

TEST(ConnectionLimitTest, ConnectionsAdmittedAtOnceNeverPassTheLimit) {
  ConnectionLimit limit(50);
  std::atomic<int> admitted{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 8; ++t) {
    threads.emplace_back([&] {
      for (int i = 0; i < 100; ++i) admitted += limit.admit();
    });
  }
  for (auto& t : threads) t.join();
  EXPECT_EQ(admitted, 50);
  EXPECT_EQ(limit.open(), 50u);
  EXPECT_EQ(limit.refused(), 750u);
}

TEST(ConnectionLimitTest, MetricsNameTheOpenTheBoundAndTheRefused) {
  ConnectionLimit limit(1);
  limit.admit();
  limit.admit();
  const std::string text = limit.metrics_text();
  EXPECT_NE(text.find("keval_http_connections 1\n"), std::string::npos) << text;
  EXPECT_NE(text.find("keval_http_connections_max 1\n"), std::string::npos) << text;
  EXPECT_NE(text.find("keval_http_connections_refused_total 1\n"), std::string::npos) << text;
}

TEST(ConnectionLimitTest, ALimitOfNoneIsABrokenInvariant) {
  EXPECT_THROW(ConnectionLimit(0), std::invalid_argument);
}

}  // namespace
}  // namespace keval
