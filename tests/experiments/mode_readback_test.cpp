#include "experiments/mode_readback.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace jetchar::experiments {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

// Two clusters of two cores (policy0: 0-1, policy2: 2-3) and a GPU, as discovery reports them.
jetson::BoardInfo board(std::vector<int> online, std::int64_t min_khz, std::int64_t max_khz, std::int64_t gpu_min_hz,
                        std::int64_t gpu_max_hz) {
  jetson::BoardInfo info;
  info.cpu.online = std::move(online);
  for (const int first : {0, 2}) {
    jetson::CpuPolicy policy;
    policy.name = "policy" + std::to_string(first);
    policy.related_cpus = {first, first + 1};
    policy.available_freqs_khz = {729600, 1497600, 2201600};
    policy.min_freq_khz = min_khz;
    policy.max_freq_khz = max_khz;
    policy.governor = "schedutil";
    info.cpu.policies.push_back(policy);
  }
  jetson::GpuDevice gpu;
  gpu.min_freq_hz = gpu_min_hz;
  gpu.max_freq_hz = gpu_max_hz;
  gpu.governor = "nvhost_podgov";
  info.gpu.gpu = gpu;
  info.emc.cur_rate_hz = 3199000000;
  return info;
}

proto::DeviceSpec request(unsigned cores, double cpu_mhz, double gpu_mhz, proto::Switch dvfs) {
  proto::DeviceSpec spec;
  spec.set_cpu_cores(cores);
  spec.set_cpu_freq_mhz(cpu_mhz);
  spec.set_gpu_freq_mhz(gpu_mhz);
  spec.set_dvfs(dvfs);
  return spec;
}

TEST(ModeReadback, ABoardInTheRequestedModeHasNoDifference) {
  const auto b = board({0, 1, 2, 3}, 1497600, 1497600, 612000000, 612000000);
  EXPECT_TRUE(differences_from_request(request(4, 1497.6, 612, proto::OFF), b).empty());
  EXPECT_TRUE(differences_from_request(proto::DeviceSpec(), b).empty()) << "as found asks for nothing";
}

TEST(ModeReadback, CoresClocksAndPinningThatDifferAreNamed) {
  // 2 cores online where 4 were asked (the 12-core run that ran on 4), the cap left at 2201.6 MHz,
  // the GPU scaling with DVFS asked off.
  const auto b = board({0, 1}, 729600, 2201600, 306000000, 612000000);
  EXPECT_THAT(differences_from_request(request(4, 1497.6, 612, proto::OFF), b),
              ElementsAre("2 CPU cores online (0,1), 4 requested", "policy0 max 2201.6 MHz, 1497.6 MHz requested",
                          "policy0 not pinned (min 729.6 MHz, max 2201.6 MHz) with DVFS off",
                          "GPU not pinned (min 306 MHz, max 612 MHz) with DVFS off"));
  // policy2 has no online core: not compared. A snapped request is checked for pinning only.
  auto snapped = request(2, 1500, 612, proto::ON);
  snapped.set_snap_to_available(true);
  EXPECT_TRUE(differences_from_request(snapped, b).empty());
}

TEST(ModeReadback, TheEmcIsAtTheAskedRateWhenPinnedAndCappedOtherwise) {
  auto b = board({0, 1, 2, 3}, 1497600, 1497600, 612000000, 612000000);
  auto ask = request(4, 1497.6, 612, proto::OFF);
  ask.set_emc_freq_mhz(2133);
  EXPECT_THAT(differences_from_request(ask, b), ElementsAre("EMC 3199 MHz (cap unreadable), 2133 MHz requested"));
  b.emc.cur_rate_hz = 2133000000;
  EXPECT_TRUE(differences_from_request(ask, b).empty());
  ask.clear_dvfs();
  b.emc.cap_hz = 2133000000;
  EXPECT_TRUE(differences_from_request(ask, b).empty()) << "a cap, when DVFS is left to the board";
}

TEST(ModeReadback, APresetIsCheckedAgainstTheNvpmodelStatusAndAMaxFanAgainstItsPwm) {
  auto b = board({0, 1, 2, 3}, 729600, 2201600, 306000000, 1300500000);
  jetson::Fan fan;
  fan.pwm_path = "/sys/devices/platform/pwm-fan/hwmon/hwmon2/pwm1";
  fan.pwm = 66;
  b.fans.fans.push_back(fan);
  proto::DeviceSpec preset;
  preset.set_preset_mode(3);
  EXPECT_TRUE(differences_from_request(preset, b, 3).empty());
  EXPECT_TRUE(differences_from_request(preset, b).empty()) << "a board without a status file";
  EXPECT_THAT(differences_from_request(preset, b, 0), ElementsAre("nvpmodel status names mode 0, mode 3 requested"));
  proto::DeviceSpec max_fan;
  max_fan.set_fan(proto::FAN_MAX);
  EXPECT_THAT(differences_from_request(max_fan, b),
              ElementsAre("fan /sys/devices/platform/pwm-fan/hwmon/hwmon2/pwm1 at PWM 66, 255 (max) requested"));
  // A fan the board drives may move during a run; one pinned at maximum may not.
  auto pinned = b;
  pinned.fans.fans[0].pwm = 255;
  EXPECT_TRUE(changes_between(pinned, b).empty());
  EXPECT_THAT(changes_between(pinned, b, max_fan),
              ElementsAre("fan /sys/devices/platform/pwm-fan/hwmon/hwmon2/pwm1 PWM 255 became 66"));
}

TEST(ModeReadback, ResolvedKnobsAreWhatTheBoardShows) {
  proto::DeviceSpec resolved;
  resolved.set_preset_mode(3);
  record_resolved_knobs(board({0, 1, 2}, 729600, 1497600, 306000000, 918000000), resolved);
  EXPECT_EQ(resolved.preset_mode(), 3u);
  EXPECT_EQ(resolved.cpu_cores(), 3u);
  EXPECT_DOUBLE_EQ(resolved.cpu_freq_mhz(), 1497.6);
  EXPECT_DOUBLE_EQ(resolved.gpu_freq_mhz(), 918);
  EXPECT_DOUBLE_EQ(resolved.emc_freq_mhz(), 3199);
}

TEST(ModeReadback, ChangesDuringARunAreNamedAndMovingRatesAreNot) {
  const auto before = board({0, 1, 2, 3}, 729600, 2201600, 306000000, 1300500000);
  auto same_but_moving = before;
  same_but_moving.cpu.policies[0].cur_freq_khz = 1497600;  // DVFS moves the rate: not a change
  EXPECT_TRUE(changes_between(before, same_but_moving).empty());

  auto capped = board({0, 1}, 729600, 1497600, 306000000, 1300500000);  // a thermal cap, cores 2-3 gone
  capped.gpu.gpu->governor = "performance";
  EXPECT_THAT(changes_between(before, capped),
              ElementsAre("online CPUs 0,1,2,3 became 0,1", "policy0 max 2201.6 MHz became 1497.6 MHz",
                          "policy2 max 2201.6 MHz became 1497.6 MHz", "GPU governor nvhost_podgov became performance"));
  auto relocked = before;
  relocked.emc.rate_locked = true;
  EXPECT_THAT(changes_between(before, relocked), ElementsAre("EMC rate lock changed"));
  auto locked_moved = relocked;
  locked_moved.emc.cur_rate_hz = 2133000000;
  EXPECT_THAT(changes_between(relocked, locked_moved), ElementsAre("locked EMC rate 3199 MHz became 2133 MHz"));
  auto unreadable = before;
  unreadable.gpu.gpu.reset();
  EXPECT_THAT(changes_between(before, unreadable), ElementsAre(HasSubstr("GPU became unreadable")));
}

// A discrete GPU as NVML discovery reports it (jetson/nvml/nvml_gpus.h).
jetson::BoardInfo with_nvml_gpu(jetson::BoardInfo info, unsigned index, std::optional<std::uint64_t> limit_mw) {
  jetson::NvmlGpu gpu;
  gpu.index = index;
  gpu.uuid = "GPU-5e0f7a1c-0000-0000-0000-000000000001";
  gpu.power_limit_mw.value = limit_mw;
  if (!limit_mw)
    gpu.power_limit_mw.absent = "nvmlDeviceGetPowerManagementLimit: Not Supported (NVML_ERROR_NOT_SUPPORTED, 3)";
  info.nvml.emplace();
  info.nvml->gpus.push_back(gpu);
  return info;
}

TEST(ModeReadback, AnNvmlPowerLimitIsResolvedFromNvmlAndCheckedAgainstTheRequest) {
  const auto host = with_nvml_gpu(board({0, 1, 2, 3}, 729600, 2201600, 306000000, 1300500000), 1, 200000);
  proto::DeviceSpec asked;
  asked.set_nvml_gpu(1);
  asked.set_gpu_power_limit_w(200);
  EXPECT_TRUE(differences_from_request(asked, host).empty());
  proto::DeviceSpec resolved = asked;
  resolved.set_gpu_power_limit_w(999);  // what the spec said is replaced by what NVML reports
  record_resolved_knobs(host, resolved);
  EXPECT_DOUBLE_EQ(resolved.gpu_power_limit_w(), 200);

  asked.set_gpu_power_limit_w(150.5);
  EXPECT_THAT(differences_from_request(asked, host), ElementsAre("GPU 1 power limit 200 W, 150.5 W requested"));
  asked.set_nvml_gpu(0);
  EXPECT_THAT(differences_from_request(asked, host),
              ElementsAre("NVML GPU 0 absent (NVML lists no GPU with that index), power limit 150.5 W requested"));

  const auto unreadable = with_nvml_gpu(board({0, 1, 2, 3}, 729600, 2201600, 306000000, 1300500000), 0, std::nullopt);
  EXPECT_THAT(differences_from_request(asked, unreadable),
              ElementsAre(HasSubstr("GPU 0 power limit nvmlDeviceGetPowerManagementLimit: Not Supported")));
  resolved = asked;
  record_resolved_knobs(unreadable, resolved);
  EXPECT_FALSE(resolved.has_gpu_power_limit_w()) << "a limit NVML cannot report is not recorded as what ran";
  // A board whose discovery did not open NVML (a simulated or remote board) is not checked.
  EXPECT_TRUE(differences_from_request(asked, board({0, 1, 2, 3}, 729600, 2201600, 306000000, 1300500000)).empty());
}

TEST(ModeReadback, AnNvmlPowerLimitChangedDuringARunIsNamed) {
  const auto base = board({0, 1, 2, 3}, 729600, 2201600, 306000000, 1300500000);
  const auto before = with_nvml_gpu(base, 0, 250000);
  EXPECT_TRUE(changes_between(before, before).empty());
  EXPECT_THAT(changes_between(before, with_nvml_gpu(base, 0, 180000)),
              ElementsAre("GPU 0 power limit 250 W became 180 W"));
  EXPECT_THAT(changes_between(before, with_nvml_gpu(base, 0, std::nullopt)),
              ElementsAre("GPU 0 power limit 250 W became unreadable"));
}

}  // namespace
}  // namespace jetchar::experiments
