#include "jetson/telemetry/telemetry_sampler.h"

#include <gtest/gtest.h>

#include <chrono>
#include <thread>

#include "tests/support/returns.h"
#include "tests/support/temp_dir.h"

namespace jetchar::jetson {
namespace {

constexpr const char* kSamplerHwmon = "/sys/bus/i2c/drivers/ina3221/1-0040/hwmon/hwmon3";
constexpr const char* kSamplerIio = "/sys/bus/i2c/drivers/ina3221x/6-0040/iio:device0";

std::string stat_text(std::uint64_t busy0, std::uint64_t idle0, std::uint64_t busy1, std::uint64_t idle1) {
  // cpu2 is offline: the kernel leaves its line out.
  return "cpu  100 0 100 1000 0 0 0 0 0 0\n"
         "cpu0 " +
         std::to_string(busy0) + " 0 0 " + std::to_string(idle0) +
         " 0 0 0 0 0 0\n"
         "cpu1 " +
         std::to_string(busy1) + " 0 0 " + std::to_string(idle1) +
         " 0 0 0 0 0 0\n"
         "intr 12345 0 0\nctxt 999\n";
}

class TelemetrySamplerTest : public ::testing::Test {
 protected:
  TelemetrySamplerTest() {
    dir.write(std::string(kSamplerHwmon).substr(1) + "/in1_input", "5000\n");
    dir.write(std::string(kSamplerHwmon).substr(1) + "/curr1_input", "1200\n");
    dir.write(std::string(kSamplerIio).substr(1) + "/in_voltage1_input", "5100\n");
    dir.write(std::string(kSamplerIio).substr(1) + "/in_current1_input", "300\n");
    dir.write(std::string(kSamplerIio).substr(1) + "/in_power1_input", "1529\n");
    dir.write("proc/stat", stat_text(100, 900, 50, 950));
    dir.write("proc/meminfo", "MemTotal:       16000000 kB\nMemFree:  1000 kB\nMemAvailable:   12000000 kB\n");
    dir.write("sys/devices/system/cpu/cpufreq/policy0/scaling_cur_freq", "1420800\n");
    dir.write("sys/devices/platform/gpu.0/load", "374\n");
    dir.write("sys/class/devfreq/17000000.ga10b/cur_freq", "918000000\n");
    dir.write("sys/class/thermal/thermal_zone1/temp", "41437\n");
    dir.write("sys/class/powercap/intel-rapl:0/energy_uj", "1000000\n");

    sources.rails.push_back({"VDD_IN", energy::RailRole::kBoardInput, std::string(kSamplerHwmon) + "/in1_input",
                             std::string(kSamplerHwmon) + "/curr1_input", std::nullopt, std::nullopt});
    sources.rails.push_back({"POM_5V_GPU", energy::RailRole::kModule, std::string(kSamplerIio) + "/in_voltage1_input",
                             std::string(kSamplerIio) + "/in_current1_input",
                             std::string(kSamplerIio) + "/in_power1_input", std::nullopt});
    sources.rails.push_back({"VDD_SOC", energy::RailRole::kModule, std::string(kSamplerHwmon) + "/in3_input",
                             std::string(kSamplerHwmon) + "/curr3_input", std::nullopt, std::nullopt});
    sources.cpus = {0, 1, 2};
    sources.cpu_clusters.push_back({"policy0", {0, 1, 2}, "/sys/devices/system/cpu/cpufreq/policy0/scaling_cur_freq"});
    sources.gpu_load_path = "/sys/devices/platform/gpu.0/load";
    sources.gpu_freq_path = "/sys/class/devfreq/17000000.ga10b/cur_freq";
    sources.emc_freq_path = "/sys/kernel/debug/bpmp/debug/clk/emc/rate";
    sources.temperatures.push_back({"GPU-therm", "/sys/class/thermal/thermal_zone1/temp"});
    sources.energy_counters.push_back({"package-0", "/sys/class/powercap/intel-rapl:0/energy_uj", 262143328850});
    sources.power_monitors.push_back({"1-0040", "hwmon", 1, 7, std::nullopt});
  }

  testing::TempDir dir;
  TelemetrySources sources;
};

TEST_F(TelemetrySamplerTest, LayoutHasUnitsInNamesAndLeavesAbsentThingsOut) {
  const sysfs::Root root(dir.path());
  TelemetrySampler sampler(root, sources, {100.0});
  const auto& layout = sampler.layout();
  EXPECT_TRUE(layout.find("VDD_IN.power_mw"));
  EXPECT_TRUE(layout.find("VDD_IN.voltage_mv"));
  EXPECT_TRUE(layout.find("POM_5V_GPU.current_ma"));
  EXPECT_FALSE(layout.find("VDD_SOC.power_mw"));  // its files do not exist
  EXPECT_FALSE(layout.find("emc.freq_hz"));       // debugfs not there
  EXPECT_TRUE(layout.find("cpu2.util_pct"));
  EXPECT_TRUE(layout.find("policy0.freq_khz"));
  EXPECT_TRUE(layout.find("GPU-therm.temp_mc"));
  EXPECT_TRUE(layout.find("package-0.power_mw"));
  ASSERT_EQ(layout.rails.size(), 3u);
  EXPECT_EQ(layout.rails[0].role, energy::RailRole::kBoardInput);
  EXPECT_EQ(sampler.power_monitor_settings().at(0).update_interval_ms, 7);
  bool soc_note = false, emc_note = false;
  for (const auto& note : sampler.notes()) {
    soc_note = soc_note || note.find("VDD_SOC") != std::string::npos;
    emc_note = emc_note || note.find("EMC frequency") != std::string::npos;
  }
  EXPECT_TRUE(soc_note);
  EXPECT_TRUE(emc_note);
}

TEST_F(TelemetrySamplerTest, ValuesFollowTheDriverConventions) {
  const sysfs::Root root(dir.path());
  TelemetrySampler sampler(root, sources, {100.0});
  const auto& layout = sampler.layout();
  const auto first = sampler.sample_now();
  auto value = [&](const TelemetrySample& s, const char* name) { return s.values[*layout.find(name)].get(); };
  EXPECT_EQ(value(first, "VDD_IN.power_mw"), 6000.0);      // hwmon: V × I
  EXPECT_EQ(value(first, "POM_5V_GPU.power_mw"), 1529.0);  // iio: in_power, not 5100 × 300
  EXPECT_EQ(value(first, "gpu.load_pct"), 37.4);
  EXPECT_EQ(value(first, "gpu.freq_hz"), 918000000.0);
  EXPECT_EQ(value(first, "policy0.freq_khz"), 1420800.0);
  EXPECT_EQ(value(first, "mem.used_kib"), 4000000.0);
  EXPECT_EQ(value(first, "GPU-therm.temp_mc"), 41437.0);
  EXPECT_FALSE(value(first, "cpu0.util_pct"));       // needs two readings
  EXPECT_FALSE(value(first, "package-0.power_mw"));  // likewise

  dir.write("proc/stat", stat_text(160, 940, 50, 1050));
  dir.write("sys/class/powercap/intel-rapl:0/energy_uj", "1500000\n");
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  const auto second = sampler.sample_now();
  EXPECT_DOUBLE_EQ(*value(second, "cpu0.util_pct"), 60.0);  // 60 busy of 100 jiffies
  EXPECT_DOUBLE_EQ(*value(second, "cpu1.util_pct"), 0.0);
  EXPECT_FALSE(value(second, "cpu2.util_pct"));  // offline: absent, not 0 %
  const double dt_s = static_cast<double>(second.time_ns - first.time_ns) / 1e9;
  EXPECT_NEAR(*value(second, "package-0.power_mw"), 500.0 / dt_s, 1e-6);  // 0.5 J over dt
}

TEST_F(TelemetrySamplerTest, FlagsRepeatedReadingsWithinTheUpdateInterval) {
  sources.rails[0].update_interval_ns = 3'600'000'000'000;  // an hour: every identical read repeats
  sources.rails[1].update_interval_ns = 1;                  // 1 ns: identical reads are real
  const sysfs::Root root(dir.path());
  TelemetrySampler sampler(root, sources, {100.0});
  const auto p0 = *sampler.layout().find("VDD_IN.power_mw");
  const auto p1 = *sampler.layout().find("POM_5V_GPU.power_mw");
  const auto a = sampler.sample_now();
  const auto b = sampler.sample_now();
  EXPECT_FALSE(a.values[p0].repeated());
  EXPECT_TRUE(b.values[p0].repeated());
  EXPECT_TRUE(b.values[p0].valid());
  EXPECT_FALSE(b.values[p1].repeated());
  dir.write(std::string(kSamplerHwmon).substr(1) + "/curr1_input", "1300\n");
  const auto c = sampler.sample_now();
  EXPECT_FALSE(c.values[p0].repeated());
  EXPECT_EQ(c.values[p0].value, 6500.0);
}

// A tree that plays "/" injects a failing read (an iio INA3221 giving up with EAGAIN): the rail's
// power is absent in the samples taken meanwhile, the other rails are read, and the sample after
// the error is gone reads it again. The table is consulted once a sample, so it must still be
// consulted at every sample.
TEST_F(TelemetrySamplerTest, AnInjectedReadErrorMakesTheRailAbsentForTheSamplesItLasts) {
  const sysfs::Root root(dir.path());
  TelemetrySampler sampler(root, sources, {100.0});
  const auto in = *sampler.layout().find("VDD_IN.power_mw");
  const auto gpu = *sampler.layout().find("POM_5V_GPU.power_mw");
  EXPECT_TRUE(sampler.sample_now().values[gpu].valid());
  dir.write(sysfs::InjectedErrors::kFileName, "read EAGAIN " + std::string(kSamplerIio) + "/in_power1_input\n");
  for (int k = 0; k < 2; ++k) {
    const auto failing = sampler.sample_now();
    EXPECT_FALSE(failing.values[gpu].valid());
    EXPECT_TRUE(failing.values[in].valid());
  }
  dir.write(sysfs::InjectedErrors::kFileName, "# none\n");
  const auto again = sampler.sample_now();
  ASSERT_TRUE(again.values[gpu].valid());
  EXPECT_EQ(again.values[gpu].value, 1529.0);
}
TEST_F(TelemetrySamplerTest, CarriesSubRateFieldsBetweenReadsWithTheirAge) {
  // Sub-rate fields (meminfo, /proc/stat, thermal, clocks, loads) are re-read at most every
  // sub_rate_period_ns; in between the last value is carried over, flagged, with its read time.
  const sysfs::Root root(dir.path());
  SamplerOptions options{1000.0};
  options.sub_rate_period_ns = 50'000'000;
  TelemetrySampler sampler(root, sources, options);
  const auto& layout = sampler.layout();
  const auto p0 = *layout.find("VDD_IN.power_mw");
  const auto mem = *layout.find("mem.used_kib");
  const auto freq = *layout.find("policy0.freq_khz");
  EXPECT_EQ(layout.fields[mem].read_period_ns, 50'000'000);
  EXPECT_EQ(layout.fields[freq].read_period_ns, 50'000'000);
  EXPECT_EQ(layout.fields[p0].read_period_ns, 0);
  EXPECT_EQ(layout.fields[*layout.find("package-0.power_mw")].read_period_ns, 0);

  const auto a = sampler.sample_now();
  EXPECT_FALSE(a.values[mem].carried());
  EXPECT_EQ(a.sub_rate_time_ns, a.time_ns);
  dir.write("sys/devices/system/cpu/cpufreq/policy0/scaling_cur_freq", "998400\n");
  const auto b = sampler.sample_now();
  EXPECT_FALSE(b.values[p0].carried());
  // Whether b came within the period depends on the machine's load; either way the flags and
  // the age must say which it was.
  if (b.time_ns - a.time_ns < 49'000'000) {
    EXPECT_TRUE(b.values[mem].carried());
    EXPECT_TRUE(b.values[freq].carried());
    EXPECT_EQ(b.values[freq].value, 1420800.0);  // not re-read yet
    EXPECT_EQ(b.values[mem].value, 4000000.0);
    EXPECT_EQ(b.sub_rate_time_ns, a.time_ns);
  } else {
    EXPECT_FALSE(b.values[freq].carried());
    EXPECT_EQ(b.values[freq].value, 998400.0);
    EXPECT_EQ(b.sub_rate_time_ns, b.time_ns);
  }
  std::this_thread::sleep_for(std::chrono::milliseconds(55));
  const auto fresh = sampler.sample_now();
  EXPECT_FALSE(fresh.values[freq].carried());
  EXPECT_EQ(fresh.values[freq].value, 998400.0);
  EXPECT_EQ(fresh.sub_rate_time_ns, fresh.time_ns);

  // At or below the sampling period there is nothing to carry: every field is read every sample.
  options.sub_rate_period_ns = 1'000'000;
  TelemetrySampler every(root, sources, options);
  EXPECT_EQ(every.layout().fields[mem].read_period_ns, 0);
  every.sample_now();
  const auto again = every.sample_now();
  EXPECT_FALSE(again.values[mem].carried());
  EXPECT_EQ(again.sub_rate_time_ns, again.time_ns);
}

TEST_F(TelemetrySamplerTest, ThreadSamplesOnAMonotonicGridAndStopsPromptly) {
  const sysfs::Root root(dir.path());
  TelemetrySampler sampler(root, sources, {200.0, 1024});
  const auto t_start = std::chrono::steady_clock::now();
  sampler.start();
  // 60 samples are due in 300 ms; a loaded CI machine may starve the thread, so wait (with a
  // deadline) for 20 instead of assuming an idle machine.
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(5);
  while (sampler.stats().samples < 20 && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  sampler.stop();
  const double elapsed_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t_start).count();
  std::vector<TelemetrySample> samples;
  sampler.drain(samples);
  ASSERT_GE(samples.size(), 20u);
  ASSERT_LE(static_cast<double>(samples.size()), elapsed_s * 200.0 + 2);  // never a burst
  // Every sample belongs to the grid start + k × 5 ms: its deadline (time − lateness) is a whole
  // number of periods after the first one's, however many deadlines were missed in between.
  const std::int64_t first_deadline = samples[0].time_ns - samples[0].lateness_ns;
  for (std::size_t i = 1; i < samples.size(); ++i) {
    EXPECT_GT(samples[i].time_ns, samples[i - 1].time_ns);
    EXPECT_GE(samples[i].lateness_ns, 0);
    EXPECT_EQ((samples[i].time_ns - samples[i].lateness_ns - first_deadline) % 5'000'000, 0) << i;
  }
  const auto stats = sampler.stats();
  EXPECT_EQ(stats.samples, samples.size());
  std::int64_t cpu_sum = 0;
  for (const auto& s : samples) cpu_sum += s.cpu_ns;
  EXPECT_EQ(cpu_sum, stats.thread_cpu_ns);  // per-sample costs add up to the thread's CPU time
  EXPECT_GT(stats.thread_cpu_ns, 0);
  EXPECT_GT(stats.read_wall_ns, 0);
  EXPECT_GT(stats.cpu_ns_per_sample(), 0.0);
  EXPECT_EQ(sampler.drain(samples), 0u);

  // A 1 Hz sampler stopped 20 ms into its first period: stop() ends the wait without taking the
  // sample that was due next (how quickly it returns is measured in bench/telemetry_bench).
  TelemetrySampler slow(root, sources, {1.0});
  slow.start();
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  EXPECT_TRUE(jetchar::testing::returns([&] { slow.stop(); }));
  std::vector<TelemetrySample> slow_samples;
  slow.drain(slow_samples);
  EXPECT_TRUE(slow_samples.empty()) << "the sample due 1 s after start was taken after stop()";
}

TEST_F(TelemetrySamplerTest, FullRingDropsAndCounts) {
  const sysfs::Root root(dir.path());
  TelemetrySampler sampler(root, sources, {500.0, 4});
  sampler.start();
  // Wait (with a deadline) until more samples were due than the ring holds, however loaded the machine.
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(5);
  while (sampler.stats().dropped == 0 && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  sampler.stop();
  EXPECT_GT(sampler.stats().dropped, 0u);
  std::vector<TelemetrySample> samples;
  EXPECT_EQ(sampler.drain(samples), 4u);
}

TEST_F(TelemetrySamplerTest, RejectsRatesOutsideOneToThousandHertz) {
  const sysfs::Root root(dir.path());
  EXPECT_THROW(TelemetrySampler(root, sources, {0.5}), std::invalid_argument);
  EXPECT_THROW(TelemetrySampler(root, sources, {2000.0}), std::invalid_argument);
}

TEST_F(TelemetrySamplerTest, PowerTraceFromSamples) {
  const sysfs::Root root(dir.path());
  TelemetrySampler sampler(root, sources, {100.0});
  energy::PowerTrace trace(sampler.layout().power_channels());
  append_power(sampler.layout(), sampler.sample_now(), trace);
  ASSERT_EQ(trace.size(), 1u);
  EXPECT_EQ(trace.power_mw(0, 0), 6000.0);
  EXPECT_FALSE(trace.power_mw(2, 0));  // the energy counter has no first value
}

}  // namespace
}  // namespace jetchar::jetson
