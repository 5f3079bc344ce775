#include "suite/held_out.h"

#include <gtest/gtest.h>

#include <fstream>
#include <set>

#include "suite/task.h"
#include "suite/task_loader.h"

namespace keval {
namespace {

const char* kTask = R"toml(name = "rows"
version = 1
track = "ops"
category = "reduction"
difficulty = 2
entry = "rows"
signature = "rows(x)"
instruction = "Sum each row."
dtypes = ["float32", "float16"]
flops = "rows * cols"
bytes = "rows * cols * elem"

[tolerance.float32]
atol = 1e-5
rtol = 1e-5
reason = "sum order"

[tolerance.float16]
atol = 1e-2
rtol = 1e-2
reason = "half precision"

[[cases]]
name = "small"
small = true
params = { rows = 4, cols = 256 }

[[cases]]
name = "outliers"
small = true
params = { rows = 4, cols = 256, outliers = true }
)toml";

bool prime(int64_t n) {
  if (n < 2) return false;
  for (int64_t d = 2; d * d <= n; ++d) {
    if (n % d == 0) return false;
  }
  return true;
}

class HeldOutTest : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = std::filesystem::temp_directory_path() /
            ("keval_held_out_test_" + std::to_string(::getpid()) + "_" +
             ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::remove_all(root_);
  }
  void TearDown() override { std::filesystem::remove_all(root_); }

  // The task above with `held_out` appended.
  Task load(const std::string& held_out) {
    auto dir = root_ / "rows";
    std::filesystem::create_directories(dir);
    std::ofstream(dir / "task.toml") << kTask << held_out;
    std::ofstream(dir / "reference.py") << "def reference(x):\n    return x.sum(-1)\n";
    std::ofstream(dir / "golden.py") << "def rows(x):\n    return x.sum(-1)\n";
    return load_task(dir);
  }
  // The one-line error loading `held_out` gives.
  std::string error_of(const std::string& held_out) {
    try {
      load(held_out);
    } catch (const TaskFileError& e) {
      return e.what();
    }
    return "(loaded)";
  }

  std::filesystem::path root_;
};

const char* kRanges = R"toml(
[held_out]
size = "rows * cols"
max_size = 100000
params = { rows = [1, 300], cols = [1, 50000], outliers = true }
)toml";

TEST_F(HeldOutTest, SameSeedDrawsTheSameCases) {
  Task task = load(kRanges);
  auto first = draw_held_out(task, 42, 3), again = draw_held_out(task, 42, 3);
  ASSERT_EQ(first.size(), 3u);
  for (size_t i = 0; i < first.size(); ++i) {
    EXPECT_EQ(first[i].name, again[i].name);
    EXPECT_EQ(first[i].params, again[i].params);
    EXPECT_EQ(first[i].dtypes, again[i].dtypes);
  }
}

TEST_F(HeldOutTest, SeedsDrawDifferentShapes) {
  Task task = load(kRanges);
  std::set<std::string> names;
  for (uint64_t seed = 0; seed < 20; ++seed) names.insert(draw_held_out(task, seed, 1).front().name);
  EXPECT_GE(names.size(), 15u);
}

TEST_F(HeldOutTest, CasesNameTheirDrawnSymbolsInFileOrder) {
  Task task = load(kRanges);
  const TaskCase c = draw_held_out(task, 7, 2)[1];
  const std::string expected = "held_out_2 rows=" + c.params["rows"].dump() + " cols=" + c.params["cols"].dump();
  EXPECT_EQ(c.name, expected);
  EXPECT_TRUE(c.small);
  EXPECT_EQ(c.params["outliers"], true);  // fixed: passed, not named
  EXPECT_EQ(c.numeric_params.at("cols"), c.params["cols"].get<double>());
  ASSERT_EQ(c.dtypes.size(), 1u);
  EXPECT_TRUE(c.dtypes[0] == "float32" || c.dtypes[0] == "float16");
}

TEST_F(HeldOutTest, DrawsStayInRangeUnderTheSizeBoundTheFirstLeaningToOddAndPrimeTheSecondEven) {
  Task task = load(kRanges);
  int odd = 0, primes = 0, even = 0, n = 0;
  auto power_of_two = [](int64_t v) { return (v & (v - 1)) == 0; };
  for (uint64_t seed = 0; seed < 200; ++seed) {
    const auto cases = draw_held_out(task, seed, 2);
    for (const TaskCase& c : cases) {
      const auto rows = c.params["rows"].get<int64_t>(), cols = c.params["cols"].get<int64_t>();
      EXPECT_TRUE(rows >= 1 && rows <= 300) << c.name;
      EXPECT_TRUE(cols >= 1 && cols <= 50000) << c.name;
      EXPECT_LE(rows * cols, 100000) << c.name;
    }
    const auto cols = cases[0].params["cols"].get<int64_t>();
    odd += cols % 2;
    primes += prime(cols);
    const auto rows2 = cases[1].params["rows"].get<int64_t>(), cols2 = cases[1].params["cols"].get<int64_t>();
    even += rows2 % 2 == 0 && cols2 % 2 == 0 && !power_of_two(rows2) && !power_of_two(cols2);
    ++n;
  }
  EXPECT_GT(odd, n * 6 / 10);
  EXPECT_GT(primes, n * 4 / 10);
  EXPECT_GE(even, n * 9 / 10);  // held_out_2: even sizes no block size divides
}

TEST_F(HeldOutTest, ConstraintsAndDerivedParamsHold) {
  Task task = load(R"toml(
[held_out]
dtypes = ["float16"]
[held_out.params]
rows = { range = [8, 4096], multiple_of = 8 }
block = { range = [3, 200], power_of_two = true }
heads = { one_of = [2, 6] }
cols = { expr = "heads * block" }
)toml");
  for (uint64_t seed = 0; seed < 100; ++seed) {
    for (const TaskCase& c : draw_held_out(task, seed, 2)) {
      const auto rows = c.params["rows"].get<int64_t>(), block = c.params["block"].get<int64_t>(),
                 heads = c.params["heads"].get<int64_t>();
      EXPECT_EQ(rows % 8, 0);
      EXPECT_TRUE(rows >= 8 && rows <= 4096);
      EXPECT_TRUE(block == 4 || block == 8 || block == 16 || block == 32 || block == 64 || block == 128) << block;
      EXPECT_TRUE(heads == 2 || heads == 6);
      EXPECT_EQ(c.params["cols"].get<int64_t>(), heads * block);
      EXPECT_EQ(c.dtypes, std::vector<std::string>{"float16"});
    }
  }
}

TEST_F(HeldOutTest, ATaskWithoutATableDrawsNone) {
  EXPECT_TRUE(draw_held_out(load(""), 1, 2).empty());
}

TEST_F(HeldOutTest, BadTablesGiveOneLineNamingFileLineAndField) {
  struct Bad {
    const char* table;
    const char* expected;
  };
  const std::vector<Bad> bad = {
      {"[held_out]\nparams = { rows = [5, 2], cols = [1, 9] }\n", "task.toml:33: held_out.params.rows: lo 5 is above hi 2"},
      {"[held_out]\nparams = { rows = [0, 2], cols = [1, 9] }\n", "held_out.params.rows: must be between 1 and"},
      {"[held_out]\nparams = { rows = [1, 2, 3], cols = [1, 9] }\n", "held_out.params.rows: a range is [lo, hi]"},
      {"[held_out]\nparams = { rows = [1, 9] }\n", "held_out.params: missing \"cols\", which every case sets"},
      {"[held_out]\nparams = { rows = [1, 9], cols = { range = [3, 7], power_of_two = true, multiple_of = 8 } }\n",
       "held_out.params.cols: no value in the range meets its constraints"},
      {"[held_out]\nparams = { rows = [1, 9], cols = { range = [1, 9], multiple_off = 2 } }\n",
       "held_out.params.cols.multiple_off: unknown field (did you mean \"multiple_of\"?)"},
      {"[held_out]\nparams = { rows = [1, 9], cols = { expr = \"2 * rowz\" } }\n",
       "held_out.params.cols.expr: unknown symbol \"rowz\" (did you mean \"rows\"?)"},
      {"[held_out]\nparams = { rows = { expr = \"cols\" }, cols = { expr = \"rows\" } }\n", "in a cycle"},
      {"[held_out]\nsize = \"rows * cols\"\nmax_size = 10\nparams = { rows = [4, 9], cols = [3, 9] }\n",
       "task.toml:34: held_out.max_size: the smallest shape"},
      {"[held_out]\nsize = \"rows * cols\"\nparams = { rows = [4, 9], cols = [3, 9] }\n",
       "held_out.max_size: size and max_size go together"},
      {"[held_out]\ndtypes = [\"float64\"]\nparams = { rows = [4, 9], cols = [3, 9] }\n",
       "held_out.dtypes: \"float64\" is not among the task's dtypes"},
      {"[held_out]\nparam = { rows = [4, 9] }\n", "held_out.param: unknown field (did you mean \"params\"?)"},
  };
  for (const auto& [table, expected] : bad) {
    const std::string error = error_of(table);
    EXPECT_NE(error.find(expected), std::string::npos) << table << "\ngave: " << error;
    EXPECT_NE(error.find("rows/task.toml:"), std::string::npos) << error;
    EXPECT_EQ(error.find('\n'), std::string::npos) << error;
  }
}

}  // namespace
}  // namespace keval
