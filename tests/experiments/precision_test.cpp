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
