#include "engine/ceilings.h"

#include <gtest/gtest.h>

namespace keval {

TEST(CeilingsTest, EfficiencyIsRooflineFraction) {
  Ceilings c = Ceilings::from_json({{"copy_gbps", 4000.0}, {"matmul_tflops", {{"bfloat16", 700.0}}}});
  // Memory-bound: 4 GB at 4000 GB/s takes 1 ms at best; measured 2 ms → 50%.
  EXPECT_NEAR(*c.efficiency(4e9, 1e9, "bfloat16", 2.0), 0.5, 1e-9);
  // Compute-bound: 1.4 PFLOP... 1.4e12 flops at 700 TFLOP/s = 2 ms; measured 4 ms → 50%.
  EXPECT_NEAR(*c.efficiency(1e6, 1.4e12, "bfloat16", 4.0), 0.5, 1e-9);
  // Unknown dtype falls back to the bf16 figure.
  EXPECT_NEAR(*c.efficiency(1e6, 1.4e12, "float8_e4m3fn", 4.0), 0.5, 1e-9);
  EXPECT_FALSE(c.efficiency(1, 1, "bfloat16", 0).has_value());
}

TEST(CeilingsTest, CachePathNamesGpuAndDriver) {
  auto path = ceilings_cache_path("NVIDIA H200", "580.159");
  EXPECT_EQ(path.filename(), "NVIDIA_H200-580.159.json");
}

}  // namespace keval
