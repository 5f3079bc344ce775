#include "serve/route_label.h"

#include <gtest/gtest.h>

namespace keval {
namespace {

TEST(RouteLabelTest, JobIdsShareOneSeries) {
  EXPECT_EQ(route_label("GET", "/v1/jobs/j-123"), "GET /v1/jobs/{id}");
  EXPECT_EQ(route_label("DELETE", "/v1/jobs/other"), "DELETE /v1/jobs/{id}");
  EXPECT_EQ(route_label("POST", "/v1/evaluate/batch"), "POST /v1/evaluate/batch");
}

TEST(RouteLabelTest, ARawPathNeverBecomesALabel) {
  // what httplib hands over for /x%22%7D%201%0Ainjected_total
  EXPECT_EQ(route_label("GET", "/x\"} 1\ninjected_total{a=\"b\"} 9"), "GET unrouted");
  EXPECT_EQ(route_label("GET", "/v1/jobs/a/b"), "GET unrouted");
  EXPECT_EQ(route_label("GET", "/v1/jobs/"), "GET unrouted");
  EXPECT_EQ(route_label("BREW\"}", "/metrics"), "OTHER /metrics");
}

}  // namespace
}  // namespace keval
