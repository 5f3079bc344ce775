#include "engine/settings/sandbox_settings.h"

#include <unistd.h>

#include <gtest/gtest.h>

namespace keval {
namespace {

TEST(SandboxSettings, TritonCacheIsPerLeasedUidNotPerSlot) {
  // Two runs at once lease different uids for slot 0; a shared "slot-0" folder was handed
  // from one uid to the other mid-job (PermissionError in Triton's compile on the H200).
  SandboxSettings first, second;
  first.uid_base = second.uid_base = 61000;
  first.slot_uids = {61000, 61001};
  second.slot_uids = {61002, 61003};
  EXPECT_EQ(first.for_slot(0, "/c")["env"]["TRITON_CACHE_DIR"], "/c/triton/uid-61000");
  EXPECT_EQ(second.for_slot(0, "/c")["env"]["TRITON_CACHE_DIR"], "/c/triton/uid-61002");
  EXPECT_EQ(second.for_slot(1, "/c")["uid"], 61003);
  EXPECT_EQ(second.for_slot(1, "/c")["env"]["TORCHINDUCTOR_CACHE_DIR"], "/c/inductor/uid-61003");
  EXPECT_EQ(second.for_slot(1, "/c")["env"]["TRITON_CACHE_AUTOTUNING"], "1");  // jobs share tuning
}

TEST(SandboxSettings, WithoutUidSwitchTheCacheIsTheInvokingUsers) {
  SandboxSettings settings;
  EXPECT_EQ(settings.for_slot(3, "/c")["env"]["TRITON_CACHE_DIR"], "/c/triton/user-" + std::to_string(::geteuid()));
  EXPECT_TRUE(settings.for_slot(3, "/c")["uid"].is_null());
  settings.enabled = false;
  EXPECT_FALSE(settings.for_slot(0, "/c").contains("env"));
}

TEST(SandboxSettings, TheRecordedWarningsNameFoldersAsReasonsDo) {
  // A root run whose Python lies in a 0700 home (/srv/ann here) warns of it; summary.json says "~/venv".
  SandboxSettings settings;
  settings.warnings = {"jobs run as root: the Python installation (/srv/ann/venv) is not readable by other users",
                       "network not isolated: this machine refused a new network namespace"};
  MachinePaths paths;
  paths.add("/srv/ann", "~");
  EXPECT_EQ(settings.describe(paths)["warnings"],
            nlohmann::json({"jobs run as root: the Python installation (~/venv) is not readable by other users",
                            "network not isolated: this machine refused a new network namespace"}));
}

}  // namespace
}  // namespace keval
