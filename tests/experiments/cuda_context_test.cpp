#include "experiments/cuda_context.h"

#include <gtest/gtest.h>

#include "experiments/torch_device.h"

namespace jetchar::experiments {
namespace {

TEST(CudaContextTest, VersionsAndArchitecturesAreWrittenAsNvidiaWritesThem) {
  EXPECT_EQ(cuda_version_text(12060), "12.6");   // CUDART_VERSION of CUDA 12.6 (JetPack 6.1)
  EXPECT_EQ(cuda_version_text(11040), "11.4");   // JetPack 5
  EXPECT_EQ(cuda_version_text(10020), "10.2");   // JetPack 4
  EXPECT_EQ(cudnn_version_text(8907), "8.9.7");  // cuDNN 8: major * 1000 + minor * 100 + patch
  EXPECT_EQ(cudnn_version_text(8600), "8.6.0");
  EXPECT_EQ(cudnn_version_text(90300), "9.3.0");  // cuDNN 9: major * 10000 + minor * 100 + patch
  EXPECT_EQ(cudnn_version_text(91002), "9.10.2");
  EXPECT_EQ(compute_capability_text(8, 7), "sm_87");  // Orin
  EXPECT_EQ(compute_capability_text(7, 2), "sm_72");  // Xavier
  EXPECT_EQ(compute_capability_text(11, 0), "sm_110");
}

TEST(CudaContextTest, ACpuRunRecordsNoCudaStack) {
  proto::RunContext context;
  record_cuda_context(torch::Device(torch::kCPU), context);
  EXPECT_FALSE(context.has_cuda_runtime_version());
  EXPECT_FALSE(context.has_cudnn_version());
  EXPECT_FALSE(context.has_gpu_name());
  EXPECT_FALSE(context.has_gpu_compute_capability());
}

TEST(CudaContextTest, ACudaRunRecordsItsGpu) {
  if (!built_with_cuda() || !torch::cuda::is_available()) GTEST_SKIP() << "no CUDA GPU";
  proto::RunContext context;
  record_cuda_context(parse_device("cuda"), context);
  ASSERT_TRUE(context.has_cuda_runtime_version());
  EXPECT_NE(context.cuda_runtime_version().find('.'), std::string::npos);
  ASSERT_TRUE(context.has_gpu_name());
  EXPECT_FALSE(context.gpu_name().empty());
  ASSERT_TRUE(context.has_gpu_compute_capability());
  EXPECT_EQ(context.gpu_compute_capability().rfind("sm_", 0), 0u);
}

}  // namespace
}  // namespace jetchar::experiments
