#include "suite/adapters/peer_source.h"

#include <gtest/gtest.h>

namespace keval {

TEST(PeerSourceTest, ParsesKindPathAndLevels) {
  auto spec = parse_peer_spec("kernelbench:/nonexistent/KernelBench:1,2");
  ASSERT_TRUE(spec.has_value());
  EXPECT_EQ(spec->kind, "kernelbench");
  EXPECT_EQ(spec->path, "/nonexistent/KernelBench");
  EXPECT_EQ(spec->extra, "1,2");
  auto g = parse_peer_spec("tritonbench-g:/x/TritonBench");
  ASSERT_TRUE(g.has_value());
  EXPECT_EQ(g->kind, "tritonbench-g");
  EXPECT_EQ(g->extra, "");
  EXPECT_EQ(parse_peer_spec("kernelbenchx:/a")->kind, "kernelbenchx");  // not "kernelbench"
}

TEST(PeerSourceTest, PlainFoldersAreNotPeers) {
  EXPECT_FALSE(parse_peer_spec("suites/keval").has_value());
  EXPECT_FALSE(parse_peer_spec("/abs/path/with:colon").has_value());
}

TEST(PeerSourceTest, MissingCheckoutIsNamed) {
  try {
    adapt_peer_suite({"kernelbench", "/nonexistent/kb", ""});
    FAIL();
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("/nonexistent/kb"), std::string::npos);
  }
}

}  // namespace keval
