// NVML on this machine's own GPUs, where the NVIDIA driver is installed (skipped elsewhere, with
// the reason): the real libnvidia-ml.so.1 answers through jetchar's ABI (nvml_abi.h) with the
// values nvidia-smi prints for the same GPUs, its energy counter agrees with its polled power, the
// telemetry sampler reads it, and the control plan checks requests against the card's own limits
// and clock tables. Nothing here changes the card: plan_nvml_writes only reads (no Set call).
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <memory>
#include <sstream>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "jetson/nvml/nvml_control.h"
#include "jetson/nvml/nvml_gpus.h"
#include "jetson/nvml/nvml_library.h"
#include "jetson/telemetry/telemetry_discovery.h"
#include "jetson/telemetry/telemetry_sampler.h"

namespace jetchar::jetson {
namespace {

using ::testing::HasSubstr;

// The driver's library by the name the driver installs: $JETCHAR_NVML_LIBRARY (which other tests
// point at the simulated GPU) plays no part here.
NvmlLibrary::Opened open_real() { return NvmlLibrary::open(std::string(kNvmlDefaultLibrary)); }

#define SKIP_WITHOUT_NVML(opened) \
  if (!(opened).library) GTEST_SKIP() << "no NVIDIA driver here: " << (opened).absent.value_or("")

// Output of a command, or nothing when it cannot run.
std::vector<std::string> command_lines(const std::string& command) {
  std::vector<std::string> lines;
  std::unique_ptr<FILE, int (*)(FILE*)> pipe(::popen(command.c_str(), "r"), ::pclose);
  if (!pipe) return lines;
  char buffer[1024];
  while (std::fgets(buffer, sizeof buffer, pipe.get())) {
    std::string line(buffer);
    while (!line.empty() && (line.back() == '\n' || line.back() == '\r')) line.pop_back();
    lines.push_back(line);
  }
  return lines;
}

std::vector<std::string> split_csv(const std::string& line) {
  std::vector<std::string> cells;
  std::stringstream in(line);
  for (std::string cell; std::getline(in, cell, ',');) {
    const auto first = cell.find_first_not_of(' ');
    cells.push_back(first == std::string::npos ? "" : cell.substr(first));
  }
  return cells;
}

TEST(NvmlRealGpuTest, EveryGpuAnswersWithValuesInItsOwnRanges) {
  const auto opened = open_real();
  SKIP_WITHOUT_NVML(opened);
  const NvmlDiscovery d = discover_nvml(opened);
  ASSERT_FALSE(d.absent) << *d.absent;
  ASSERT_FALSE(d.gpus.empty());
  for (const NvmlGpu& g : d.gpus) {
    SCOPED_TRACE(g.uuid);
    EXPECT_THAT(g.uuid, ::testing::StartsWith("GPU-"));
    ASSERT_TRUE(g.name.value) << g.name.absent.value_or("");
    EXPECT_FALSE(g.name.value->empty());
    ASSERT_TRUE(g.memory_total_bytes.value) << g.memory_total_bytes.absent.value_or("");
    EXPECT_GT(*g.memory_total_bytes.value, 1ULL << 30);
    ASSERT_TRUE(g.memory_used_bytes.value);
    EXPECT_LE(*g.memory_used_bytes.value, *g.memory_total_bytes.value);
    ASSERT_TRUE(g.power_limit_range_mw.value) << g.power_limit_range_mw.absent.value_or("");
    const auto [min_mw, max_mw] = *g.power_limit_range_mw.value;
    EXPECT_LT(min_mw, max_mw);
    ASSERT_TRUE(g.default_power_limit_mw.value);
    EXPECT_GE(*g.default_power_limit_mw.value, min_mw);
    EXPECT_LE(*g.default_power_limit_mw.value, max_mw);
    ASSERT_TRUE(g.power_mw.value) << g.power_mw.absent.value_or("");
    EXPECT_GT(*g.power_mw.value, 1'000u);  // an idle data-centre GPU still draws tens of watts
    EXPECT_LT(*g.power_mw.value, max_mw * 3 / 2);
    ASSERT_TRUE(g.temperature_c.value);
    EXPECT_GT(*g.temperature_c.value, 0u);
    EXPECT_LT(*g.temperature_c.value, 110u);
    ASSERT_TRUE(g.graphics_clocks_mhz.value) << g.graphics_clocks_mhz.absent.value_or("");
    const auto& table = *g.graphics_clocks_mhz.value;
    ASSERT_FALSE(table.empty());
    EXPECT_TRUE(std::is_sorted(table.rbegin(), table.rend()));  // highest first
    ASSERT_TRUE(g.sm_clock_mhz.value);
    EXPECT_LE(*g.sm_clock_mhz.value, table.front());
    ASSERT_TRUE(g.memory_clocks_mhz.value);
    EXPECT_FALSE(g.memory_clocks_mhz.value->empty());
    EXPECT_TRUE(g.energy_mj.value) << g.energy_mj.absent.value_or("");  // Volta and newer
    EXPECT_TRUE(g.clock_event_reasons.value) << g.clock_event_reasons.absent.value_or("");
  }
}

// nvidia-smi is NVIDIA's own NVML client: the same GPU's identity, memory and default power limit
// read through jetchar's struct layouts must equal what it prints.
TEST(NvmlRealGpuTest, ReadsWhatNvidiaSmiPrintsForTheSameGpus) {
  const auto opened = open_real();
  SKIP_WITHOUT_NVML(opened);
  const auto lines = command_lines(
      "nvidia-smi --query-gpu=uuid,name,memory.total,power.default_limit,driver_version "
      "--format=csv,noheader,nounits 2>/dev/null");
  if (lines.empty()) GTEST_SKIP() << "nvidia-smi is not here";
  const NvmlDiscovery d = discover_nvml(opened);
  ASSERT_EQ(d.gpus.size(), lines.size());
  for (std::size_t i = 0; i < lines.size(); ++i) {
    SCOPED_TRACE(lines[i]);
    const auto cells = split_csv(lines[i]);
    ASSERT_EQ(cells.size(), 5u);
    const NvmlGpu& g = d.gpus[i];
    EXPECT_EQ(g.uuid, cells[0]);
    EXPECT_EQ(g.name.value, cells[1]);
    // MiB; nvidia-smi's memory.total may come from the v2 struct, which can count reserved memory.
    EXPECT_NEAR(static_cast<double>(*g.memory_total_bytes.value) / (1 << 20), std::stod(cells[2]),
                std::stod(cells[2]) * 0.02);
    EXPECT_NEAR(*g.default_power_limit_mw.value / 1000.0, std::stod(cells[3]), 0.01);
    EXPECT_EQ(d.driver_version, cells[4]);
  }
}

// Over two seconds the counter's energy and the polled power (a one-second mean on Ampere and
// newer) describe the same draw; 15 % leaves room for the polled value's lag behind the counter.
TEST(NvmlRealGpuTest, TheEnergyCounterAgreesWithThePolledPower) {
  const auto opened = open_real();
  SKIP_WITHOUT_NVML(opened);
  const NvmlLibrary& nvml = *opened.library;
  const auto device = nvml.handle(0);
  ASSERT_TRUE(device.ok()) << device.error;
  const auto start = nvml.total_energy_mj(*device.value);
  if (!start.ok()) GTEST_SKIP() << start.error;
  const auto t0 = std::chrono::steady_clock::now();
  double polled_sum = 0;
  int polls = 0;
  while (std::chrono::steady_clock::now() - t0 < std::chrono::seconds(2)) {
    const auto power = nvml.power_usage_mw(*device.value);
    ASSERT_TRUE(power.ok()) << power.error;
    polled_sum += *power.value;
    ++polls;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  const auto end = nvml.total_energy_mj(*device.value);
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  ASSERT_TRUE(end.ok()) << end.error;
  const double counter_mw = static_cast<double>(*end.value - *start.value) / seconds;
  const double polled_mw = polled_sum / polls;
  EXPECT_NEAR(counter_mw, polled_mw, polled_mw * 0.15) << "counter " << counter_mw << " mW, polled " << polled_mw;
}

TEST(NvmlRealGpuTest, TheSamplerReadsPowerClocksAndTheCounter) {
  const auto opened = open_real();
  SKIP_WITHOUT_NVML(opened);
  TelemetrySources sources;
  sources.cpu_utilization = false;
  sources.memory = false;
  add_nvml_sources(sources, opened);
  ASSERT_FALSE(sources.nvml_gpus.empty());
  TelemetrySampler sampler(sysfs::Root("/"), sources, {10.0});
  const TelemetryLayout& layout = sampler.layout();
  sampler.sample_now();
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  const TelemetrySample sample = sampler.sample_now();
  for (const char* name : {"nvml0_power.power_mw", "nvml0_energy.power_mw", "nvml0.sm_clock_mhz", "nvml0.temp_mc"}) {
    const auto index = layout.find(name);
    ASSERT_TRUE(index) << name;
    const auto value = sample.values[*index].get();
    ASSERT_TRUE(value) << name;
    EXPECT_GT(*value, 0) << name;
  }
}

// The plan reads the card's power-limit constraints and clock tables and refuses what they do not
// allow, naming the valid range; it never calls a Set function.
TEST(NvmlRealGpuTest, TheControlPlanChecksRequestsAgainstTheCardsOwnLimits) {
  const auto opened = open_real();
  SKIP_WITHOUT_NVML(opened);
  const NvmlLibrary& nvml = *opened.library;
  const NvmlDiscovery d = discover_nvml(opened);
  ASSERT_FALSE(d.gpus.empty());
  const NvmlGpu& g = d.gpus[0];
  ASSERT_TRUE(g.default_power_limit_mw.value && g.power_limit_range_mw.value && g.graphics_clocks_mhz.value);

  NvmlSettings at_default;
  at_default.power_limit_w = static_cast<double>(*g.default_power_limit_mw.value) / 1000.0;
  const auto writes = plan_nvml_writes(nvml, at_default);
  ASSERT_EQ(writes.size(), 1u);
  EXPECT_EQ(writes[0].path, nvml_control_path(g.uuid, NvmlKnob::kPowerLimit));
  EXPECT_EQ(writes[0].value, std::to_string(*g.default_power_limit_mw.value));

  NvmlSettings too_high;
  too_high.power_limit_w = static_cast<double>(g.power_limit_range_mw.value->second) / 1000.0 + 1.0;
  try {
    plan_nvml_writes(nvml, too_high);
    ADD_FAILURE() << "a power limit above the card's maximum was planned";
  } catch (const std::invalid_argument& e) {
    EXPECT_THAT(e.what(), HasSubstr("is outside what it accepts; valid: "));
  }

  const auto& table = *g.graphics_clocks_mhz.value;  // highest first
  NvmlSettings in_table;
  in_table.gpu_locked_clocks_mhz = NvmlClockRange{table.back(), table.front()};
  EXPECT_EQ(plan_nvml_writes(nvml, in_table).size(), 1u);
  NvmlSettings above_table;
  above_table.gpu_locked_clocks_mhz = NvmlClockRange{table.front() + 1, table.front() + 1};
  EXPECT_THROW(plan_nvml_writes(nvml, above_table), std::invalid_argument);
}

}  // namespace
}  // namespace jetchar::jetson
