// End to end through the real executable: `jetchar monitor` for a fraction of a second on this
// machine, on every fixture board as a simulated board, with CSV and JSONL logs, with --baseload,
// and with an external meter simulated over a real pty. Skips when jetchar has not been built.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "jetson/control/nvpmodel_tool.h"
#include "jetson/meters/meter_simulator.h"
#include "jetson/meters/synthetic_power_trace.h"
#include "jetson/simulated/board_fixture.h"
#include "tests/support/jetchar_cli.h"
#include "tests/support/temp_dir.h"

namespace jetchar::jetson {
namespace {

namespace fs = std::filesystem;
using namespace std::chrono_literals;

using testing::jetchar_executable;

ProcessResult monitor(std::vector<std::string> args) {
  args.insert(args.begin(), "monitor");
  return run_process(testing::jetchar_command(args), {}, 60s);
}

std::vector<std::string> lines_of(const fs::path& file) {
  std::ifstream in(file);
  std::vector<std::string> lines;
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

std::vector<nlohmann::json> jsonl_of(const fs::path& file) {
  std::vector<nlohmann::json> records;
  for (const auto& line : lines_of(file)) records.push_back(nlohmann::json::parse(line));
  return records;
}

class MonitorCliIntegration : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!fs::exists(jetchar_executable())) GTEST_SKIP() << jetchar_executable() << " not built";
  }
  testing::TempDir dir;
};

TEST_F(MonitorCliIntegration, RunsOnThisMachineAndLogsEverySampleAsCsv) {
  const fs::path csv = dir.path() / "host.csv";
  const auto run = monitor({"--board", "host", "--rate", "50", "--duration", "0.5", "--csv", csv.string()});
  ASSERT_EQ(run.exit_code, 0) << run.output;
  EXPECT_NE(run.output.find("sampler: "), std::string::npos) << run.output;
  const auto lines = lines_of(csv);
  ASSERT_GE(lines.size(), 2u);
  EXPECT_EQ(lines[0].rfind("source,time_s,", 0), 0u) << lines[0];
  EXPECT_NE(lines[0].find("cpu0.util_pct"), std::string::npos) << lines[0];
  EXPECT_NE(lines[0].find("mem.used_kib"), std::string::npos) << lines[0];
  const auto columns = std::count(lines[0].begin(), lines[0].end(), ',');
  double last_t = -1;
  std::size_t rows = 0;
  for (std::size_t i = 1; i < lines.size(); ++i) {
    ASSERT_EQ(std::count(lines[i].begin(), lines[i].end(), ','), columns) << lines[i];
    ASSERT_EQ(lines[i].rfind("onboard,", 0), 0u) << lines[i];
    const double t = std::stod(lines[i].substr(8));
    EXPECT_GT(t, last_t);
    EXPECT_LT(t, 0.6);
    last_t = t;
    ++rows;
  }
  // 25 due at 50 Hz; a loaded machine may miss some deadlines, never add samples.
  EXPECT_GE(rows, 5u);
  EXPECT_LE(rows, 27u);
}

class MonitorCliFixtureIntegration : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override {
    if (!fs::exists(jetchar_executable())) GTEST_SKIP() << jetchar_executable() << " not built";
  }
  testing::TempDir dir;
};

TEST_P(MonitorCliFixtureIntegration, RunsOnTheSimulatedBoardWithRailsAndEnergyInJsonl) {
  const std::string fixture = GetParam();
  const fs::path jsonl = dir.path() / "sim.jsonl";
  const auto run =
      monitor({"--board", "sim:" + fixture, "--rate", "100", "--duration", "0.4", "--jsonl", jsonl.string()});
  ASSERT_EQ(run.exit_code, 0) << run.output;
  EXPECT_NE(run.output.find("power figures are modelled"), std::string::npos) << run.output;
  const auto records = jsonl_of(jsonl);
  ASSERT_GE(records.size(), 3u);
  std::vector<std::string> rails;
  std::size_t onboard = 0;
  double power_sum_mw = 0;
  for (const auto& r : records) {
    if (r.at("source") != "onboard") continue;
    ++onboard;
    const auto& values = r.at("values");
    for (const auto& [name, value] : values.items()) {
      if (name.size() > 9 && name.substr(name.size() - 9) == ".power_mw") {
        ASSERT_TRUE(value.is_number()) << fixture << " " << name << " is " << value;  // every rail of a fixture reads
        if (onboard == 1) rails.push_back(name.substr(0, name.size() - 9));
        power_sum_mw += value.get<double>();
      }
    }
    EXPECT_TRUE(values.at("gpu.freq_hz").is_number()) << fixture;
  }
  EXPECT_GE(onboard, 5u);
  ASSERT_FALSE(rails.empty()) << fixture;
  EXPECT_GT(power_sum_mw, 0.0);
  const auto& summary = records.back();
  ASSERT_EQ(summary.at("source"), "summary") << summary;
  const auto begin = summary.at("window_begin_monotonic_ns").get<std::int64_t>();
  const auto end = summary.at("window_end_monotonic_ns").get<std::int64_t>();
  EXPECT_GT(end, begin);
  for (const auto& rail : rails) {
    ASSERT_TRUE(summary.at("rail_energy_mj").at(rail).is_number()) << fixture << " " << rail;
    EXPECT_GE(summary.at("rail_energy_mj").at(rail).get<double>(), 0.0);
  }
  ASSERT_TRUE(summary.at("total_energy_mj").is_number()) << summary;
  const auto total = summary.at("total").get<std::string>();
  const bool has_input = std::find_if(rails.begin(), rails.end(), [](const std::string& r) {
                           return r == "VDD_IN" || r == "POM_5V_IN" || r == "VIN";
                         }) != rails.end();
  if (has_input) {
    EXPECT_NE(total.find("board input"), std::string::npos) << total;
  } else {
    EXPECT_NE(total.find("sum of module rails"), std::string::npos) << total;
    EXPECT_EQ(total.find("VDDQ_VDD2_1V8AO"), std::string::npos) << "a sub-rail counted twice: " << total;
  }
  // The total's energy over the window is a mean power the rails actually showed.
  const double mean_total_mw = summary.at("total_energy_mj").get<double>() / (static_cast<double>(end - begin) / 1e9);
  EXPECT_GT(mean_total_mw, 100.0) << fixture;
  EXPECT_LT(mean_total_mw, 100'000.0) << fixture;
}

INSTANTIATE_TEST_SUITE_P(Boards, MonitorCliFixtureIntegration, ::testing::ValuesIn(list_board_fixtures()),
                         [](const ::testing::TestParamInfo<std::string>& info) {
                           std::string name = info.param;
                           std::replace(name.begin(), name.end(), '-', '_');
                           return name;
                         });

TEST_F(MonitorCliIntegration, BaseloadReportsIdlePowerPerRailWithItsSpread) {
  const auto run = monitor({"--board", "sim:agx-orin-r36", "--rate", "100", "--baseload", "0.5"});
  ASSERT_EQ(run.exit_code, 0) << run.output;
  EXPECT_NE(run.output.find("idle power (baseload), onboard rails over"), std::string::npos) << run.output;
  for (const char* rail : {"VDD_GPU_SOC", "VDD_CPU_CV", "VIN_SYS_5V0", "VDDQ_VDD2_1V8AO"}) {
    const auto at = run.output.find(std::string("  ") + rail + " ");
    ASSERT_NE(at, std::string::npos) << rail << "\n" << run.output;
    // name, mean, stddev, min, max, samples, role: mean and spread are numbers, not "-".
    std::istringstream row(run.output.substr(at, run.output.find('\n', at) - at));
    std::string name, mean, stddev, min, max;
    std::size_t samples = 0;
    row >> name >> mean >> stddev >> min >> max >> samples;
    EXPECT_GT(std::stod(mean), 0.0) << rail;
    EXPECT_GE(std::stod(stddev), 0.0) << rail;
    EXPECT_LE(std::stod(min), std::stod(mean)) << rail;
    EXPECT_GE(std::stod(max), std::stod(mean)) << rail;
    EXPECT_GE(samples, 5u) << rail;
  }
  EXPECT_NE(run.output.find("total: "), std::string::npos);
  EXPECT_NE(run.output.find("sum of module rails (VDD_GPU_SOC + VDD_CPU_CV + VIN_SYS_5V0)"), std::string::npos)
      << run.output;
}

TEST_F(MonitorCliIntegration, BadMeterAndOutputArgumentsAreInputErrors) {
  auto run = monitor({"--board", "host", "--duration", "0.1", "--meter", "fluke:/dev/null"});
  EXPECT_EQ(run.exit_code, 3) << run.output;
  EXPECT_NE(run.output.find("fluke"), std::string::npos) << run.output;
  run = monitor({"--board", "host", "--duration", "0.1", "--meter", "ina"});
  EXPECT_EQ(run.exit_code, 3) << run.output;
  EXPECT_NE(run.output.find("PROTOCOL:DEVICE"), std::string::npos) << run.output;
  run = monitor({"--board", "host", "--duration", "0.1", "--csv", (dir.path() / "no-such-dir" / "x.csv").string()});
  EXPECT_NE(run.exit_code, 0) << run.output;
  EXPECT_NE(run.output.find("no-such-dir"), std::string::npos) << run.output;
}

// A meter simulator in this process serves the standard trace over a pty; the monitor reads it,
// aligns it and reports its energy over the onboard window. The window is printed in
// CLOCK_MONOTONIC (shared by both processes), so the exact energy of what the simulator served is
// known here.
struct MeterCase {
  std::string name;
  std::string protocol;
  std::chrono::milliseconds interval;
  double voltage_mv;
  /// How long the meter serves before the monitor starts: longer than the pty buffer holds, the
  /// monitor reads a buffer of old lines and then lines from after those the meter dropped.
  std::chrono::milliseconds serving_before = std::chrono::milliseconds(0);
};
void PrintTo(const MeterCase& c, std::ostream* os) { *os << c.name; }

class MonitorCliMeterIntegration : public ::testing::TestWithParam<MeterCase> {
 protected:
  void SetUp() override {
    if (!fs::exists(jetchar_executable())) GTEST_SKIP() << jetchar_executable() << " not built";
  }
  testing::TempDir dir;
};

TEST_P(MonitorCliMeterIntegration, ReportsTheMetersEnergyAlignedToTheOnboardWindow) {
  const MeterCase& c = GetParam();
  meters::MeterSimulatorOptions sim_options;
  sim_options.interval = c.interval;
  meters::MeterSimulator sim(c.protocol, meters::SyntheticPowerTrace::standard(c.voltage_mv), sim_options);
  sim.start();
  std::this_thread::sleep_for(c.serving_before);
  const fs::path jsonl = dir.path() / "meter.jsonl";
  const auto run =
      monitor({"--board", "host", "--rate", "50", "--duration", "1", "--meter", c.protocol + ":" + sim.device_path(),
               "--meter-interval", std::to_string(c.interval.count()), "--jsonl", jsonl.string()});
  ASSERT_EQ(run.exit_code, 0) << run.output;
  EXPECT_NE(run.output.find("meter energy: "), std::string::npos) << run.output;
  // The INA logger numbers its lines, so the clock is fitted across lost lines too.
  EXPECT_NE(run.output.find("alignment: meter clock "), std::string::npos) << run.output;
  if (c.serving_before > std::chrono::milliseconds(0)) {
    EXPECT_EQ(run.output.find(" 0 gaps"), std::string::npos) << "the meter lost no lines: " << run.output;
  }
  // The host has no onboard power (or RAPL, which never saw the simulator's trace): the offset is
  // reported, never applied without a strong correlation.
  EXPECT_NE(run.output.find("offset vs onboard total: "), std::string::npos) << run.output;

  const auto records = jsonl_of(jsonl);
  std::size_t meter_records = 0;
  for (const auto& r : records) meter_records += r.at("source") == "meter" ? 1 : 0;
  const auto& summary = records.back();
  ASSERT_EQ(summary.at("source"), "summary");
  ASSERT_TRUE(summary.at("meter_energy_mj").is_number()) << summary;
  EXPECT_FALSE(summary.at("meter_offset_applied").get<bool>());
  ASSERT_TRUE(summary.at("meter_clock_fit").is_object()) << summary;
  const auto interval_ns = summary.at("meter_clock_fit").at("interval_ns").get<double>();
  EXPECT_NEAR(interval_ns, static_cast<double>(c.interval.count()) * 1e6, 0.05 * c.interval.count() * 1e6);
  EXPECT_EQ(summary.at("meter_readings").get<std::size_t>(), meter_records);

  // The part of the onboard window the meter covered, against the exact energy the simulator
  // served over it. Error budget: the fitted report times sit within the fit's largest removed
  // delay of the true ones, and an interval's reading stands for the whole interval (average
  // meters) or is interpolated over it (instantaneous ones): each moment's power is off by at
  // most the trace's variation over (interval + delay); over the window that is bounded by
  // TV × (interval + delay), plus one LSB of the protocol's power (0.1 W for wt300's 5 digits,
  // 1 mW-ish for the INA line) over the duration.
  const auto ns = [&](const char* key) { return summary.at(key).get<std::int64_t>(); };
  const std::int64_t begin = std::max(ns("window_begin_monotonic_ns"), ns("meter_first_ns"));
  const std::int64_t end = std::min(ns("window_end_monotonic_ns"), ns("meter_last_ns"));
  ASSERT_GT(end - begin, 500'000'000) << "the meter covered too little of the window: " << summary;
  const auto& trace = sim.trace();
  const std::int64_t t0 = sim.start_ns();
  // How far the fitted report times can be from the true ones. The INA logger numbers its lines
  // from 0 and the simulator recorded when each stood for: the error is measured directly, over
  // the reports the monitor kept (those produced inside its aligned span; the stale lines of a
  // port opened late are dropped, and the fit is not extrapolated back to them). For the others
  // (the reader's own count) it is bounded by the largest delay the fit removed.
  auto delay_ns = summary.at("meter_clock_fit").at("max_delay_ns").get<double>();
  if (c.protocol == "ina") {
    const auto served = sim.served();
    const auto origin = summary.at("meter_clock_fit").at("origin_ns").get<double>();
    const auto kept_from = static_cast<double>(summary.at("meter_first_ns").get<std::int64_t>()) - 10e6;
    const auto kept_to = static_cast<double>(summary.at("meter_last_ns").get<std::int64_t>()) + 10e6;
    double worst = 0;
    for (std::size_t seq = 0; seq < served.size(); ++seq) {
      const auto produced = static_cast<double>(served[seq].time_ns);
      if (produced < kept_from || produced > kept_to) continue;
      worst = std::max(
          worst, std::abs(origin + interval_ns * static_cast<double>(seq) - static_cast<double>(served[seq].time_ns)));
    }
    EXPECT_LT(worst, 5e6) << "fitted INA report times off by " << worst / 1e6 << " ms";
    delay_ns = worst;
  }
  const auto lag = static_cast<std::int64_t>(interval_ns + delay_ns);
  double tv = 0, last = trace.power_mw(begin - lag - t0);
  for (std::int64_t t = begin - lag; t <= end + lag; t += 100'000) {
    tv += std::abs(trace.power_mw(t - t0) - last);
    last = trace.power_mw(t - t0);
  }
  const double exact = trace.energy_mj(begin - t0, end - t0);
  const double lsb_mw = c.protocol == "wt300" ? 100.0 : 20.0;
  const double bound = tv * static_cast<double>(lag) / 1e9 + lsb_mw * static_cast<double>(end - begin) / 1e9;
  const auto measured = summary.at("meter_energy_mj").get<double>();
  EXPECT_NEAR(measured, exact, bound) << c.protocol << ": window " << (end - begin) / 1e6 << " ms, TV " << tv
                                      << " mW, lag " << lag / 1e6 << " ms";
  EXPECT_LT(bound, 0.2 * exact);  // the comparison means something
}

INSTANTIATE_TEST_SUITE_P(Protocols, MonitorCliMeterIntegration,
                         ::testing::Values(MeterCase{"ina", "ina", 10ms, 19000},
                                           MeterCase{"wt300", "wt300", 100ms, 19000},
                                           MeterCase{"ina_opened_late", "ina", 2ms, 19000, 3000ms}),
                         [](const ::testing::TestParamInfo<MeterCase>& info) { return info.param.name; });

}  // namespace
}  // namespace jetchar::jetson
