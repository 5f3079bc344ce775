#include "suite/task_loader.h"

#include <gtest/gtest.h>

#include <fstream>

#include "suite/suite.h"

namespace keval {
namespace {

const char* kValidToml = R"toml(name = "scale"
version = 2
track = "ops"
category = "elementwise"
difficulty = 1
entry = "scale"
signature = "scale(x)"
instruction = "Multiply x by two."
dtypes = ["float32", "float16"]
flops = "M * N"
bytes = "2 * M * N * elem"

[tolerance.float32]
atol = 1e-6
rtol = 1e-6
reason = "exact up to rounding"

[tolerance.float16]
atol = 1e-3
rtol = 1e-3
reason = "half precision"

[[cases]]
name = "tiny"
small = true
params = { M = 3, N = 5, outliers = true }

[[cases]]
name = "big"
params = { M = 4096, N = 4096 }
dtypes = ["float16"]
)toml";

class TaskLoaderTest : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = std::filesystem::temp_directory_path() /
            ("keval_task_test_" + std::to_string(::getpid()) + "_" +
             ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::remove_all(root_);
    write_task("scale", kValidToml);
  }
  void TearDown() override { std::filesystem::remove_all(root_); }

  void write_task(const std::string& name, const std::string& toml) {
    auto dir = root_ / name;
    std::filesystem::create_directories(dir);
    std::ofstream(dir / "task.toml") << toml;
    std::ofstream(dir / "reference.py") << "def reference(x):\n    return 2 * x\n";
    std::ofstream(dir / "golden.py") << "def scale(x):\n    return 2 * x\n";
  }

  std::string error_of(const std::string& toml) {
    write_task("scale", toml);
    try {
      load_task(root_ / "scale");
    } catch (const TaskFileError& e) {
      return e.what();
    }
    return "";
  }

  static std::string replace(std::string text, const std::string& from, const std::string& to) {
    text.replace(text.find(from), from.size(), to);
    return text;
  }

  std::filesystem::path root_;
};

TEST_F(TaskLoaderTest, LoadsEveryField) {
  Task task = load_task(root_ / "scale");
  EXPECT_EQ(task.name, "scale");
  EXPECT_EQ(task.version, 2);
  EXPECT_EQ(task.dtypes, (std::vector<std::string>{"float32", "float16"}));
  ASSERT_EQ(task.cases.size(), 2u);
  EXPECT_TRUE(task.cases[0].small);
  EXPECT_EQ(task.cases[0].params["outliers"], true);
  EXPECT_EQ(task.cases[0].numeric_params.at("N"), 5);
  EXPECT_EQ(task.dtypes_of(task.cases[1]), std::vector<std::string>{"float16"});
  EXPECT_DOUBLE_EQ(task.tolerance.at("float16").atol, 1e-3);
  EXPECT_DOUBLE_EQ(case_bytes(task, task.cases[1], "float16"), 2.0 * 4096 * 4096 * 2);
}

TEST_F(TaskLoaderTest, SharedInputsDefaultsToTrueAndCanBeTurnedOff) {
  EXPECT_TRUE(load_task(root_ / "scale").shared_inputs);
  write_task("scale", replace(kValidToml, "flops =", "shared_inputs = false\nflops ="));
  EXPECT_FALSE(load_task(root_ / "scale").shared_inputs);
  EXPECT_NE(error_of(replace(kValidToml, "flops =", "shared_inputs = 1\nflops =")).find("shared_inputs"),
            std::string::npos);
}

TEST_F(TaskLoaderTest, InputsOnDeviceDefaultsToFalseAndCanBeTurnedOn) {
  EXPECT_FALSE(load_task(root_ / "scale").inputs_on_device);
  write_task("scale", replace(kValidToml, "flops =", "inputs_on_device = true\nflops ="));
  EXPECT_TRUE(load_task(root_ / "scale").inputs_on_device);
  EXPECT_NE(error_of(replace(kValidToml, "flops =", "inputs_on_device = \"yes\"\nflops =")).find("inputs_on_device"),
            std::string::npos);
}

TEST_F(TaskLoaderTest, CheckReferenceDefinedIsOffUnlessTheTaskAsks) {
  EXPECT_FALSE(load_task(root_ / "scale").check_reference_defined);
  write_task("scale", replace(kValidToml, "flops =", "check_reference_defined = true\nflops ="));
  EXPECT_TRUE(load_task(root_ / "scale").check_reference_defined);
}

TEST_F(TaskLoaderTest, PrecisionIsFp32UnlessTheTaskStatesAnother) {
  EXPECT_EQ(load_task(root_ / "scale").precision, "fp32");
  write_task("scale", replace(kValidToml, "flops =", "precision = \"tf32\"\nflops ="));
  EXPECT_EQ(load_task(root_ / "scale").precision, "tf32");
  std::string error = error_of(replace(kValidToml, "flops =", "precision = \"fp16\"\nflops ="));
  EXPECT_NE(error.find("precision: must be \"fp32\", \"tf32\" or \"any\" (did you mean \"fp32\"?)"),
            std::string::npos) << error;
}

TEST_F(TaskLoaderTest, ComputeRateIsOptionalAndMustNameAMeasuredRate) {
  EXPECT_EQ(load_task(root_ / "scale").compute_rate, "");
  write_task("scale", replace(kValidToml, "flops =", "compute_rate = \"float32_ieee\"\nflops ="));
  EXPECT_EQ(load_task(root_ / "scale").compute_rate, "float32_ieee");
  std::string error = error_of(replace(kValidToml, "flops =", "compute_rate = \"float32_iee\"\nflops ="));
  EXPECT_NE(error.find("compute_rate: unknown rate \"float32_iee\" (did you mean \"float32_ieee\"?)"),
            std::string::npos) << error;
}

TEST_F(TaskLoaderTest, AdapterIsOptionalAndMustNameAPeerPackage) {
  EXPECT_EQ(load_task(root_ / "scale").adapter, "");
  write_task("scale", replace(kValidToml, "flops =", "adapter = \"kernelbench\"\nflops ="));
  EXPECT_EQ(load_task(root_ / "scale").adapter, "kernelbench");
  for (const std::string bad : {"../keval_runner", "common", "KernelBench"}) {
    std::string error = error_of(replace(kValidToml, "flops =", "adapter = \"" + bad + "\"\nflops ="));
    EXPECT_NE(error.find("adapter: \"" + bad + "\" is not a peer package"), std::string::npos) << error;
  }
}


TEST_F(TaskLoaderTest, MisspelledFieldNamesLineAndSuggestion) {
  std::string error = error_of(replace(kValidToml, "category =", "catgory ="));
  EXPECT_NE(error.find("task.toml:4: catgory: unknown field (did you mean \"category\"?)"),
            std::string::npos)
      << error;
}

TEST_F(TaskLoaderTest, MissingFieldIsNamed) {
  std::string error = error_of(replace(kValidToml, "entry = \"scale\"\n", ""));
  EXPECT_NE(error.find("entry: missing required field"), std::string::npos) << error;
}

TEST_F(TaskLoaderTest, UnknownDtypeSuggestsNearOne) {
  std::string error = error_of(replace(kValidToml, "[\"float32\", \"float16\"]",
                                       "[\"float32\", \"flaot16\"]"));
  EXPECT_NE(error.find("unknown dtype \"flaot16\" (did you mean \"float16\"?)"), std::string::npos)
      << error;
}

TEST_F(TaskLoaderTest, DtypeWithoutToleranceIsRejected) {
  std::string error = error_of(replace(kValidToml, "[tolerance.float16]\natol = 1e-3\nrtol = 1e-3\n"
                                                   "reason = \"half precision\"\n", ""));
  EXPECT_NE(error.find("tolerance.float16: missing"), std::string::npos) << error;
}

TEST_F(TaskLoaderTest, CaseToleranceOverridesTheTasksForItsDtype) {
  write_task("scale", kValidToml + std::string("tolerance.float16 = { atol = 0.5, rtol = 0.25, reason = \"cancels\" }\n"));
  Task task = load_task(root_ / "scale");
  EXPECT_DOUBLE_EQ(task.tolerance_of(task.cases[1], "float16").atol, 0.5);
  EXPECT_DOUBLE_EQ(task.tolerance_of(task.cases[1], "float16").rtol, 0.25);
  EXPECT_DOUBLE_EQ(task.tolerance_of(task.cases[0], "float16").atol, 1e-3);
  EXPECT_DOUBLE_EQ(task.tolerance_of(task.cases[0], "float32").atol, 1e-6);
}

TEST_F(TaskLoaderTest, CaseToleranceForAnotherDtypeIsRejected) {
  std::string error = error_of(kValidToml + std::string(
      "tolerance.float32 = { atol = 0.5, rtol = 0.25, reason = \"cancels\" }\n"));
  EXPECT_NE(error.find("cases[1].tolerance.float32: dtype not listed"), std::string::npos) << error;
  error = error_of(kValidToml + std::string("tolerance.float16 = { atol = -1, rtol = 0, reason = \"x\" }\n"));
  EXPECT_NE(error.find("cases[1].tolerance.float16.atol: must be >= 0"), std::string::npos) << error;
}

TEST_F(TaskLoaderTest, UnknownSymbolInCostExpressionIsRejected) {
  std::string error = error_of(replace(kValidToml, "flops = \"M * N\"", "flops = \"M * K\""));
  EXPECT_NE(error.find("unknown symbol \"K\""), std::string::npos) << error;
}

TEST_F(TaskLoaderTest, TaskWithoutSmallCaseIsRejected) {
  std::string error = error_of(replace(kValidToml, "small = true\n", ""));
  EXPECT_NE(error.find("no case has small = true"), std::string::npos) << error;
}

TEST_F(TaskLoaderTest, InvalidTomlNamesLine) {
  std::string error = error_of(std::string(kValidToml) + "\nbroken = [\n");
  EXPECT_NE(error.find("invalid TOML"), std::string::npos) << error;
}

TEST_F(TaskLoaderTest, SuiteListsEveryBrokenTask) {
  write_task("other", replace(replace(kValidToml, "name = \"scale\"", "name = \"other\""),
                              "track = \"ops\"", "track = \"opz\""));
  write_task("third", replace(kValidToml, "name = \"scale\"", "name = \"thrid\""));
  try {
    Suite::load(root_);
    FAIL() << "expected a SuiteError";
  } catch (const SuiteError& e) {
    std::string what = e.what();
    EXPECT_NE(what.find("track: must be \"ops\" or \"real\" (did you mean \"ops\"?)"),
              std::string::npos) << what;
    EXPECT_NE(what.find("differs from its folder \"third\""), std::string::npos) << what;
  }
}

TEST_F(TaskLoaderTest, SuiteSelectsByGlob) {
  write_task("scale_two", replace(kValidToml, "name = \"scale\"", "name = \"scale_two\""));
  Suite suite = Suite::load(root_);
  EXPECT_EQ(suite.select("scale*").size(), 2u);
  EXPECT_EQ(suite.select("*two").size(), 1u);
  EXPECT_EQ(suite.select("scale,nothing*").size(), 1u);
  EXPECT_EQ(suite.find("scale")->entry, "scale");
  EXPECT_EQ(suite.find("nope"), nullptr);
}

}  // namespace
}  // namespace keval
