#include "submission/harness_introspection.h"

#include <gtest/gtest.h>

#include <algorithm>

#include "submission/static_scan.h"

namespace keval {
namespace {

const IntrospectionUse* use_of(const std::vector<IntrospectionUse>& uses, const std::string& construct) {
  auto found = std::find_if(uses.begin(), uses.end(),
                            [&](const IntrospectionUse& u) { return u.construct == construct; });
  return found == uses.end() ? nullptr : &*found;
}

TEST(HarnessIntrospectionTest, FindsFrameWalkingWithItsLine) {
  const auto uses = find_introspection(
      "import sys, inspect\n"
      "f = sys._getframe(1)\n"
      "g = f.f_back.f_locals\n"
      "h = inspect.currentframe().f_globals\n"
      "for info in inspect.stack():\n"
      "    pass\n"
      "outer = inspect.getouterframes(h)\n");
  for (const auto& [construct, line] : std::vector<std::pair<std::string, int>>{
           {"sys._getframe", 2}, {".f_back", 3}, {".f_locals", 3}, {"inspect.currentframe", 4},
           {".f_globals", 4}, {"inspect.stack", 5}, {"inspect.getouterframes", 7}}) {
    const IntrospectionUse* use = use_of(uses, construct);
    ASSERT_NE(use, nullptr) << construct;
    EXPECT_EQ(use->line, line) << construct;
    EXPECT_EQ(use->kind, "frame walking");
    EXPECT_TRUE(use->reaches_harness);
  }
}

TEST(HarnessIntrospectionTest, TracingHooksAreFrameWalking) {
  const auto uses = find_introspection("import sys, threading\nsys.setprofile(hook)\nthreading.settrace(hook)\n");
  ASSERT_NE(use_of(uses, "sys.setprofile"), nullptr);
  EXPECT_EQ(use_of(uses, "sys.setprofile")->line, 2);
  ASSERT_NE(use_of(uses, "sys.settrace"), nullptr);
  EXPECT_EQ(use_of(uses, "sys.settrace")->kind, "frame walking");
}

TEST(HarnessIntrospectionTest, FindsImportedNamesAndAliases) {
  EXPECT_NE(use_of(find_introspection("from inspect import currentframe as cf\n"), "inspect.currentframe"), nullptr);
  EXPECT_NE(use_of(find_introspection("from inspect import stack\n"), "inspect.stack"), nullptr);
  EXPECT_NE(use_of(find_introspection("import gc as g\nobjs = g.get_objects()\n"), "gc.get_objects"), nullptr);
  EXPECT_NE(use_of(find_introspection("getattr(sys, '_getframe')(0)\n"), "sys._getframe"), nullptr);
}

TEST(HarnessIntrospectionTest, FindsGcWalksAndKevalModulesEvenInStrings) {
  const auto uses = find_introspection(
      "import gc\n"
      "a = gc.get_referrers(x)\n"
      "b = gc.get_referents(x)\n"
      "m = sys.modules['keval_runner.checks']\n"
      "import keval_baseline_golden\n");
  ASSERT_NE(use_of(uses, "gc.get_referrers"), nullptr);
  EXPECT_EQ(use_of(uses, "gc.get_referrers")->kind, "gc object walk");
  ASSERT_NE(use_of(uses, "gc.get_referents"), nullptr);
  ASSERT_NE(use_of(uses, "keval_runner"), nullptr);
  EXPECT_EQ(use_of(uses, "keval_runner")->line, 4);
  EXPECT_TRUE(use_of(uses, "keval_runner")->reaches_harness);
  ASSERT_NE(use_of(uses, "keval_baseline_golden"), nullptr);
  EXPECT_EQ(use_of(uses, "keval_baseline_golden")->kind, "keval internals");
}

TEST(HarnessIntrospectionTest, SysModulesAndCtypesAloneAreOnlyFlags) {
  const auto uses = find_introspection("import ctypes\nimport sys\nt = sys.modules['torch']\n");
  ASSERT_NE(use_of(uses, "ctypes"), nullptr);
  ASSERT_NE(use_of(uses, "sys.modules"), nullptr);
  EXPECT_FALSE(use_of(uses, "ctypes")->reaches_harness);
  EXPECT_FALSE(use_of(uses, "sys.modules")->reaches_harness);
  EXPECT_TRUE(scan_python_source("import ctypes\nimport sys\nt = sys.modules['torch']\n", "f").harness_reach().empty());
}

TEST(HarnessIntrospectionTest, CommentsOrdinaryNamesAndOtherKevalWordsDoNotCount) {
  EXPECT_TRUE(find_introspection("# sys._getframe and gc.get_objects, keval_runner\n"
                                 "y = torch.stack([a, b])\n"
                                 "name = 'keval_hostile_marker'\n"
                                 "f_backward = 1\n").empty());
}

TEST(HarnessIntrospectionTest, EveryUseIsAFlagAndOnlyRunnerReachDecides) {
  StaticScan scan = scan_python_source("import gc\nimport ctypes\nobjs = gc.get_objects()\n", "f");
  ASSERT_EQ(scan.harness_reach().size(), 1u);
  EXPECT_EQ(scan.harness_reach()[0].describe(), "gc.get_objects (gc object walk) at line 3");
  EXPECT_NE(std::find(scan.flags.begin(), scan.flags.end(),
                      "reaches keval's runner: gc.get_objects (gc object walk) at line 3"), scan.flags.end());
  EXPECT_NE(std::find(scan.flags.begin(), scan.flags.end(), "introspection: ctypes at line 2"), scan.flags.end());
}

}  // namespace
}  // namespace keval
