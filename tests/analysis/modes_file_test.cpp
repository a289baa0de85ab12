#include "analysis/modes_file.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "analysis/input_error.h"

namespace jetchar::analysis {
namespace {

using ::testing::HasSubstr;

TEST(ModesFile, ReadsKnobsInAnyUnit) {
  auto modes = parse_modes_csv(
      "mode,cpu_cores,cpu_freq_mhz,gpu_freq_hz,emc_freq_khz\n"
      "a,4,1984,930750000,3199000\n,8,729.6,306000000,665600\n",
      "m.csv");
  ASSERT_EQ(modes.size(), 2u);
  EXPECT_EQ(modes[0].name, "a");
  EXPECT_EQ(modes[0].cpu_freq_khz, 1984000);
  EXPECT_EQ(modes[0].gpu_freq_khz, 930750);
  EXPECT_EQ(modes[1].name, "");
  EXPECT_EQ(modes[1].cpu_freq_khz, 729600);
}

TEST(ModesFile, RejectsUnknownColumnsAndMissingKnobs) {
  try {
    parse_modes_csv("cpu_cores,cpu_freq_ghz\n4,1\n", "m.csv");
    FAIL();
  } catch (const InputError& e) {
    EXPECT_THAT(e.what(), HasSubstr("m.csv:1: column 'cpu_freq_ghz': is not a power-mode column"));
  }
  try {
    parse_modes_csv("cpu_cores,cpu_freq_khz,gpu_freq_khz,emc_freq_khz\n4,1000,1000,\n", "m.csv");
    FAIL();
  } catch (const InputError& e) {
    EXPECT_THAT(e.what(), HasSubstr("m.csv:2: power mode '4c/cpu1/gpu1/emc?MHz' lacks a knob"));
  }
  EXPECT_THROW(parse_modes_csv("cpu_cores,cpu_freq_khz,gpu_freq_khz,emc_freq_khz\n", "m.csv"), InputError);
}

}  // namespace
}  // namespace jetchar::analysis
