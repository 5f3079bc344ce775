#include "common/machine_paths.h"

#include <gtest/gtest.h>

namespace keval {
namespace {

TEST(MachinePathsTest, KnownFoldersBecomeRelativeNamesLongestFirst) {
  MachinePaths paths;
  paths.add("/srv/runs/out", ".");
  paths.add("/srv/keval/runner", "runner");
  paths.add("/srv/keval/suites/keval", "keval");
  paths.add("/srv", "~");
  EXPECT_EQ(paths.relative("failed in /srv/runs/out/work/0ac5/submission.py at line 5"),
            "failed in work/0ac5/submission.py at line 5");
  EXPECT_EQ(paths.relative("File \"/srv/keval/runner/keval_runner/child.py\", line 9"),
            "File \"runner/keval_runner/child.py\", line 9");
  EXPECT_EQ(paths.relative("(runner: /srv/keval/runner, log: /srv/runs/out/logs/runner-0.log)"),
            "(runner: runner, log: logs/runner-0.log)");
  EXPECT_EQ(paths.relative("/srv/keval/suites/keval/relu/reference.py:3"), "keval/relu/reference.py:3");
  EXPECT_EQ(paths.relative("/srv/other/x.py"), "~/other/x.py");
}

TEST(MachinePathsTest, OnlyWholeFoldersArePathsStartsAndPythonsOwnAreShortened) {
  MachinePaths paths;
  paths.add("/srv/out", ".");
  EXPECT_EQ(paths.relative("/srv/outside/a.py /x/srv/out/b.py"), "/srv/outside/a.py /x/srv/out/b.py");
  EXPECT_EQ(paths.relative("stderr: /opt/venv/lib/python3.11/site-packages/numpy/_core/fromnumeric.py:54: "
                           "RuntimeWarning\n  File \"/usr/lib/python3.11/runpy.py\""),
            "stderr: site-packages/numpy/_core/fromnumeric.py:54: RuntimeWarning\n  File \"python3.11/runpy.py\"");
  EXPECT_EQ(paths.relative("no path here"), "no path here");
}

}  // namespace
}  // namespace keval
