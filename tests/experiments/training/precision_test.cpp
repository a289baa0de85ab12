#include "experiments/training/precision.h"

#include <ATen/autocast_mode.h>
#include <gtest/gtest.h>

namespace jetchar::experiments {
namespace {

TEST(PrecisionTest, ParsesNamesAndRejectsOthers) {
  EXPECT_EQ(parse_precision("fp32"), Precision::kFp32);
  EXPECT_EQ(parse_precision("tf32"), Precision::kTf32);
  EXPECT_EQ(parse_precision("amp-fp16"), Precision::kAmpFp16);
  EXPECT_EQ(parse_precision("fp16"), Precision::kAmpFp16);
  EXPECT_EQ(parse_precision("bf16"), Precision::kBf16);
  try {
    parse_precision("int8");
    FAIL();
  } catch (const std::invalid_argument& error) {
    EXPECT_NE(std::string(error.what()).find("'int8'"), std::string::npos);
    EXPECT_NE(std::string(error.what()).find("bf16"), std::string::npos);
  }
}

TEST(PrecisionTest, AmpFp16NeedsCuda) {
  EXPECT_THROW(check_precision(Precision::kAmpFp16, torch::kCPU), std::invalid_argument);
  EXPECT_NO_THROW(check_precision(Precision::kBf16, torch::kCPU));
  EXPECT_EQ(resolved_precision(Precision::kTf32, torch::kCPU), "tf32 (no effect on cpu: fp32)");
}

// The message Debian's arm64 LibTorch gives for a bf16 layer under qemu-aarch64, with the C++
// backtrace c10 appends: the record keeps the first line and says what it means.
TEST(PrecisionTest, RunErrorsKeepTheFirstLineAndExplainOneDnnRefusingBf16) {
  const std::string onednn =
      "could not create a primitive descriptor iterator\nException raised from ... (most recent call first):\nframe "
      "#0: ...";
  const auto bf16_cpu = run_error_text(onednn, Precision::kBf16, torch::kCPU);
  EXPECT_EQ(bf16_cpu.rfind("could not create a primitive descriptor iterator (bf16 on the CPU: ", 0), 0u) << bf16_cpu;
  EXPECT_NE(bf16_cpu.find("fp32 runs)"), std::string::npos) << bf16_cpu;
  EXPECT_EQ(bf16_cpu.find('\n'), std::string::npos);
  EXPECT_EQ(run_error_text(onednn, Precision::kFp32, torch::kCPU), "could not create a primitive descriptor iterator");
  EXPECT_EQ(run_error_text(onednn, Precision::kBf16, torch::Device(torch::kCUDA)),
            "could not create a primitive descriptor iterator");
  EXPECT_EQ(run_error_text("shape mismatch", Precision::kBf16, torch::kCPU), "shape mismatch");
}

TEST(PrecisionTest, CpuAutocastRunsMatmulsInBf16AndIsRestored) {
  auto a = torch::randn({4, 4});
  {
    AutocastScope scope(Precision::kBf16, torch::kCPU);
    EXPECT_TRUE(at::autocast::is_cpu_enabled());
    EXPECT_EQ(torch::mm(a, a).scalar_type(), torch::kBFloat16);
  }
  EXPECT_FALSE(at::autocast::is_cpu_enabled());
  EXPECT_EQ(torch::mm(a, a).scalar_type(), torch::kFloat);
  AutocastScope none(Precision::kFp32, torch::kCPU);
  EXPECT_EQ(torch::mm(a, a).scalar_type(), torch::kFloat);
}

TEST(PrecisionTest, Tf32ScopeRestoresTheGlobalSwitches) {
  const bool before = at::globalContext().allowTF32CuBLAS();
  {
    Tf32Scope scope(!before);
    EXPECT_EQ(at::globalContext().allowTF32CuBLAS(), !before);
  }
  EXPECT_EQ(at::globalContext().allowTF32CuBLAS(), before);
}

}  // namespace
}  // namespace jetchar::experiments
