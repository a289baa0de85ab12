// NVML's knobs through the change journal: checked against the GPU's constraints before anything
// is written, the original journalled first, refused without root with nothing changed, and put
// back by another process after the one that set them was SIGKILLed (the simulated GPU keeps its
// state in a file, as the driver keeps it across processes).
#include "jetson/nvml/nvml_control.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include "jetson/nvml/nvml_gpus.h"
#include "tests/jetson/fake_nvml/fake_nvml_env.h"

namespace jetchar::jetson {
namespace {

using testing::FakeNvmlEnv;
using ::testing::HasSubstr;

const std::string kUuid = "GPU-5f8e1c2a-0000-4000-8000-000000000000";

class NvmlControlTest : public ::testing::Test {
 protected:
  FakeNvmlEnv env;
  testing::TempDir board, state;
  sysfs::Root root{board.path()};
  std::shared_ptr<NvmlLibrary> nvml = [] {
    auto opened = NvmlLibrary::open();
    EXPECT_TRUE(opened.library) << opened.absent.value_or("");
    return opened.library;
  }();
  NvmlGpu gpu() const { return discover_nvml().gpus.at(0); }
};

TEST_F(NvmlControlTest, PlansAreCheckedAgainstTheGpusConstraints) {
  NvmlSettings settings;
  settings.power_limit_w = 200;
  settings.gpu_locked_clocks_mhz = NvmlClockRange{1200, 1500};
  settings.memory_locked_clocks_mhz = NvmlClockRange{5001, 9751};
  const auto writes = plan_nvml_writes(*nvml, settings);
  ASSERT_EQ(writes.size(), 3u);
  EXPECT_EQ(writes[0].path, "nvml:" + kUuid + "/power_limit_mw");
  EXPECT_EQ(writes[0].value, "200000");
  EXPECT_EQ(writes[1].path, "nvml:" + kUuid + "/gpu_locked_clocks_mhz");
  EXPECT_EQ(writes[1].value, "1200,1500");
  EXPECT_EQ(writes[2].value, "5001,9751");

  settings = NvmlSettings{};
  settings.power_limit_w = 50;
  EXPECT_THAT([&] { plan_nvml_writes(*nvml, settings); },
              ::testing::ThrowsMessage<std::invalid_argument>(
                  HasSubstr("GPU 0 (" + kUuid + ") power limit 50 W is outside what it accepts; valid: 100 to 350 W")));
  settings = NvmlSettings{};
  settings.gpu_locked_clocks_mhz = NvmlClockRange{100, 3000};
  EXPECT_THAT([&] { plan_nvml_writes(*nvml, settings); },
              ::testing::ThrowsMessage<std::invalid_argument>(HasSubstr("valid: 210 to 1695 MHz")));
  settings = NvmlSettings{};
  settings.gpu_index = 3;
  settings.power_limit_w = 200;
  EXPECT_THAT(
      [&] { plan_nvml_writes(*nvml, settings); },
      ::testing::ThrowsMessage<std::invalid_argument>(HasSubstr("NVML GPU index 3 does not exist; valid: 0 to 0")));
  EXPECT_THAT([] { parse_clock_range("1500,1200", "--gpu-locked-clocks"); },
              ::testing::ThrowsMessage<std::invalid_argument>(
                  HasSubstr("--gpu-locked-clocks '1500,1200' is not a clock range")));
}

TEST_F(NvmlControlTest, AJetsonsNvmlHasNoPowerLimitToSet) {
  env.set("JETCHAR_FAKE_NVML_PROFILE", "jetson");
  NvmlSettings settings;
  settings.power_limit_w = 200;
  EXPECT_THAT(
      [&] { plan_nvml_writes(*nvml, settings); },
      ::testing::ThrowsMessage<std::runtime_error>(HasSubstr(
          "power limit: nvmlDeviceGetPowerManagementLimitConstraints: Not Supported (NVML_ERROR_NOT_SUPPORTED, 3)")));
}

TEST_F(NvmlControlTest, WritesAreJournalledFirstAndRestored) {
  NvmlSettings settings;
  settings.power_limit_w = 200;
  settings.gpu_locked_clocks_mhz = NvmlClockRange{1200, 1500};
  sysfs::ChangeJournal journal(root, state.path());
  apply_nvml_writes(*nvml, journal, plan_nvml_writes(*nvml, settings));
  EXPECT_EQ(gpu().power_limit_mw.value, 200'000u);
  EXPECT_THAT(env.state(), HasSubstr("gpu0.gpu_locked 1200 1500"));
  const auto contents = sysfs::read_journal(journal.file());
  ASSERT_EQ(contents.entries.size(), 2u);
  EXPECT_EQ(contents.entries[0].original, "350000");
  EXPECT_EQ(contents.entries[1].original, "reset");
  EXPECT_EQ(journal.restore(), 2u);
  EXPECT_EQ(gpu().power_limit_mw.value, 350'000u);
  EXPECT_THAT(env.state(), HasSubstr("gpu0.gpu_locked 0 0"));
}

TEST_F(NvmlControlTest, WithoutRootTheErrorSaysSoAndNothingChanges) {
  env.set("JETCHAR_FAKE_NVML_NON_ROOT", "1");
  NvmlSettings settings;
  settings.power_limit_w = 200;
  sysfs::ChangeJournal journal(root, state.path());
  EXPECT_THAT(
      [&] { apply_nvml_writes(*nvml, journal, plan_nvml_writes(*nvml, settings)); },
      ::testing::ThrowsMessage<std::runtime_error>(::testing::AllOf(
          HasSubstr("GPU 0 (" + kUuid + ") power limit 200 W: "),
          HasSubstr("nvmlDeviceSetPowerManagementLimit: Insufficient Permissions (NVML_ERROR_NO_PERMISSION, 4); "
                    "NVML's control calls need root"),
          HasSubstr("nothing was changed"))));
  EXPECT_TRUE(journal.empty());
  EXPECT_FALSE(std::filesystem::exists(journal.file()));
  EXPECT_EQ(gpu().power_limit_mw.value, 350'000u);
}

TEST_F(NvmlControlTest, AnotherProcessRestoresWhatAKilledOneSet) {
  const pid_t child = ::fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    try {
      auto opened = NvmlLibrary::open();
      NvmlSettings settings;
      settings.power_limit_w = 150;
      settings.memory_locked_clocks_mhz = NvmlClockRange{810, 810};
      sysfs::ChangeJournal journal(root, state.path());
      apply_nvml_writes(*opened.library, journal, plan_nvml_writes(*opened.library, settings));
    } catch (...) {
      ::_exit(3);
    }
    ::raise(SIGKILL);  // no restore, no destructors
  }
  int status = 0;
  ASSERT_EQ(::waitpid(child, &status, 0), child);
  ASSERT_TRUE(WIFSIGNALED(status)) << "child exited with " << WEXITSTATUS(status);
  EXPECT_EQ(gpu().power_limit_mw.value, 150'000u);
  EXPECT_EQ(gpu().memory_clock_mhz.value, 810u);

  register_nvml_controls();
  ASSERT_TRUE(sysfs::find_pending_journal(state.path()));
  sysfs::ChangeJournal journal(root, state.path());
  EXPECT_EQ(journal.restore(), 2u);
  EXPECT_EQ(gpu().power_limit_mw.value, 350'000u);
  EXPECT_EQ(gpu().memory_clock_mhz.value, 9751u);
  EXPECT_FALSE(sysfs::find_pending_journal(state.path()));
}

}  // namespace
}  // namespace jetchar::jetson
