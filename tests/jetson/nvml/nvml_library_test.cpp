// NVML opened at run time: the simulated GPU through the same dlopen path as libnvidia-ml.so.1,
// and every way NVML can be absent reported with its reason.
#include "jetson/nvml/nvml_library.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "jetson/nvml/nvml_gpus.h"
#include "tests/jetson/fake_nvml/fake_nvml_env.h"

namespace jetchar::jetson {
namespace {

using testing::FakeNvmlEnv;
using ::testing::HasSubstr;

TEST(NvmlLibraryTest, DefaultIsTheDriversLibraryAndTheEnvironmentOverridesIt) {
  ::unsetenv(kNvmlLibraryEnv);
  EXPECT_EQ(NvmlLibrary::library_path(), "libnvidia-ml.so.1");
  FakeNvmlEnv env;
  EXPECT_EQ(NvmlLibrary::library_path(), testing::fake_nvml_library().string());
  EXPECT_EQ(NvmlLibrary::library_path(std::string("/x/libnvidia-ml.so.1")), "/x/libnvidia-ml.so.1");
}

TEST(NvmlLibraryTest, AMissingLibraryIsAbsentWithDlopensReason) {
  const auto opened = NvmlLibrary::open(std::string("/nonexistent/libnvidia-ml.so.1"));
  EXPECT_EQ(opened.library, nullptr);
  ASSERT_TRUE(opened.absent);
  EXPECT_THAT(*opened.absent, HasSubstr("/nonexistent/libnvidia-ml.so.1 cannot be loaded"));
  EXPECT_THAT(*opened.absent, HasSubstr("No such file or directory"));
  const NvmlDiscovery discovery = discover_nvml(opened);
  EXPECT_TRUE(discovery.gpus.empty());
  EXPECT_EQ(discovery.absent, opened.absent);
}

TEST(NvmlLibraryTest, ALibraryThatIsNotNvmlIsAbsentNamingTheMissingSymbol) {
  const auto opened = NvmlLibrary::open(std::string("libm.so.6"));
  EXPECT_EQ(opened.library, nullptr);
  ASSERT_TRUE(opened.absent);
  EXPECT_THAT(*opened.absent, HasSubstr("has no nvmlInit_v2"));
}

TEST(NvmlLibraryTest, NoDriverIsAbsentWithNvmlInitsError) {
  FakeNvmlEnv env;
  env.set("JETCHAR_FAKE_NVML_NO_DRIVER", "1");
  const auto opened = NvmlLibrary::open();
  EXPECT_EQ(opened.library, nullptr);
  ASSERT_TRUE(opened.absent);
  EXPECT_EQ(*opened.absent, "nvmlInit_v2 failed: Driver Not Loaded (NVML_ERROR_DRIVER_NOT_LOADED, 9)");
}

TEST(NvmlLibraryTest, TheSimulatedGpuAnswersThroughTheSameLoader) {
  FakeNvmlEnv env;
  env.set("JETCHAR_FAKE_NVML_GPUS", "2");
  const auto opened = NvmlLibrary::open();
  ASSERT_NE(opened.library, nullptr) << opened.absent.value_or("");
  const NvmlLibrary& nvml = *opened.library;
  ASSERT_EQ(nvml.device_count().value, 2u);
  const auto device = nvml.handle(1).value.value();
  EXPECT_EQ(nvml.uuid(device).value, "GPU-5f8e1c2a-0000-4000-8000-000000000001");
  EXPECT_EQ(nvml.handle_by_uuid("GPU-5f8e1c2a-0000-4000-8000-000000000001").value, device);
  const auto missing = nvml.handle_by_uuid("GPU-nope");
  EXPECT_FALSE(missing.ok());
  EXPECT_EQ(missing.code, nvml_abi::NVML_ERROR_NOT_FOUND);
  EXPECT_THAT(missing.error, HasSubstr("nvmlDeviceGetHandleByUUID"));
  // The list calls' two-step size protocol: 4 memory clocks, 100 graphics clocks (1695..210 by 15).
  EXPECT_EQ(nvml.supported_memory_clocks_mhz(device).value, (std::vector<unsigned int>{9751, 5001, 810, 405}));
  EXPECT_EQ(nvml.supported_graphics_clocks_mhz(device, 9751).value->size(), 100u);
  const auto bad = nvml.supported_graphics_clocks_mhz(device, 1234);
  EXPECT_EQ(bad.code, nvml_abi::NVML_ERROR_INVALID_ARGUMENT);
}

TEST(NvmlLibraryTest, ReturnCodesHaveNvmlsNames) {
  EXPECT_EQ(nvml_return_name(nvml_abi::NVML_ERROR_NOT_SUPPORTED), "NVML_ERROR_NOT_SUPPORTED");
  EXPECT_EQ(nvml_return_name(nvml_abi::NVML_ERROR_NO_PERMISSION), "NVML_ERROR_NO_PERMISSION");
  EXPECT_EQ(nvml_return_name(12345), "NVML error");
}

}  // namespace
}  // namespace jetchar::jetson
