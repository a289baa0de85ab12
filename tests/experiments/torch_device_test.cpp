#include "experiments/torch_device.h"

#include <gtest/gtest.h>

namespace jetchar::experiments {
namespace {

TEST(TorchDeviceTest, ParsesCpuAndRejectsUnknownDevices) {
  EXPECT_EQ(parse_device("cpu"), torch::Device(torch::kCPU));
  EXPECT_THROW(parse_device("tpu"), std::invalid_argument);
  synchronize(torch::kCPU);  // a no-op, but must be callable
}

TEST(TorchDeviceTest, CudaIsRejectedClearlyWithoutAGpu) {
  if (built_with_cuda() && torch::cuda::is_available()) GTEST_SKIP() << "a CUDA GPU is present";
  try {
    parse_device("cuda");
    FAIL();
  } catch (const std::invalid_argument& error) {
    EXPECT_NE(std::string(error.what()).find("valid: cpu"), std::string::npos);
  }
}

}  // namespace
}  // namespace jetchar::experiments
