// The texts `jetchar monitor` prints about a session (jetson/measurement/session_summary.h), for
// figures given here, and the baseloads a session on a simulated board with a simulated meter yields.
#include "jetson/measurement/session_summary.h"

#include <gtest/gtest.h>

#include <chrono>
#include <thread>

#include "tests/jetson/measurement/board_with_meter.h"

namespace jetchar::jetson::measurement {
namespace {

using namespace std::chrono_literals;

TEST(SessionSummary, SamplerCostGivesTheRateAchievedAndTheShareOfOneCore) {
  SamplerStats stats;
  stats.samples = 100;
  stats.elapsed_ns = 2'000'000'000;
  stats.thread_cpu_ns = 5'000'000;
  stats.missed_deadlines = 2;
  stats.dropped = 1;
  EXPECT_EQ(sampler_cost_text(stats, 50),
            "sampler: 100 samples at 50.00 Hz (asked 50), 2 missed deadlines, 1 dropped; cost 50.0 us CPU per "
            "sample, 0.250 % of one core\n");
  EXPECT_EQ(sampler_cost_text(SamplerStats{}, 2.5),
            "sampler: 0 samples at 0.00 Hz (asked 2.5), 0 missed deadlines, 0 dropped; cost 0.0 us CPU per sample, "
            "0.000 % of one core\n");
}

TEST(SessionSummary, BaseloadIsATableOfRailsAndTheTotal) {
  SourceBaseload source{"onboard rails", {}};
  auto& b = source.baseload;
  b.begin_ns = 1'000'000'000;
  b.end_ns = 3'500'000'000;
  b.rails.push_back({"VDD_IN", energy::RailRole::kBoardInput, 4012.34, 12.5, 3990.0, 4100.0, 250});
  b.rails.push_back(
      {"VDD_CPU_CV", energy::RailRole::kModule, std::nullopt, std::nullopt, std::nullopt, std::nullopt, 0});
  b.total.label = "board input VDD_IN";
  b.total_power_mw = 4012.34;
  EXPECT_EQ(baseload_text(source),
            "idle power (baseload), onboard rails over 2.500 s\n"
            "  rail                      mean_mW    stddev_mW       min_mW       max_mW  samples\n"
            "  VDD_IN                     4012.3         12.5       3990.0       4100.0      250  board-input\n"
            "  VDD_CPU_CV                      -            -            -            -        0  module\n"
            "  total: 4012.3 mW (board input VDD_IN)\n");
  b.total_power_mw.reset();
  EXPECT_NE(baseload_text(source).find("  total: - (board input VDD_IN)\n"), std::string::npos);
}

TEST(SessionSummary, EnergyNamesEachRailAndTheTotalsDefinition) {
  SessionEnergy e;
  e.begin_ns = 0;
  e.end_ns = 1'250'000'000;
  const MeterSession no_meters({});
  EXPECT_EQ(energy_text(e, no_meters), "energy: no power rails or energy counters on this board\n");
  energy::WindowEnergy onboard;
  onboard.rails.push_back({"VDD_IN", energy::RailRole::kBoardInput, {5123.0}, std::nullopt});
  onboard.rails.push_back({"VDD_GPU", energy::RailRole::kModule, {}, std::nullopt});  // no figure: left out
  onboard.total.label = "board input VDD_IN";
  onboard.total_energy_mj = 5123.0;
  e.onboard = onboard;
  EXPECT_EQ(energy_text(e, no_meters), "energy over 1.250 s: VDD_IN 5.123 J; total 5.123 J (board input VDD_IN)\n");
}

TEST(SessionSummary, WithoutAMeterThereIsNoMeterStatus) {
  const MeterSession no_meters({});
  EXPECT_EQ(meter_status_text(no_meters), "");
}

// A session on a simulated AGX Orin with a simulated INA meter: the baseloads are the onboard
// rails' and the meter's, and the texts name the meter's figures.
TEST(SessionSummary, ASessionsBaseloadsAreTheOnboardRailsThenTheMeter) {
  const testing::BoardWithMeter setting;
  MeasurementSession session(setting.board.root(), setting.options(100));
  session.start();
  std::this_thread::sleep_for(300ms);
  session.stop();
  const auto span = session.sampled_span();
  ASSERT_TRUE(span);

  const auto baseloads = session_baseloads(session, span->first, span->second);
  ASSERT_EQ(baseloads.size(), 2u);
  EXPECT_EQ(baseloads[0].source, "onboard rails");
  EXPECT_FALSE(baseloads[0].baseload.rails.empty());
  EXPECT_EQ(baseloads[1].source, "external meter");
  ASSERT_EQ(baseloads[1].baseload.rails.size(), 1u);
  ASSERT_TRUE(baseloads[1].baseload.rails[0].mean_power_mw);
  // The standard trace lies between 3 W and 9 W.
  EXPECT_GE(*baseloads[1].baseload.rails[0].mean_power_mw, 2900);
  EXPECT_LE(*baseloads[1].baseload.rails[0].mean_power_mw, 9100);
  EXPECT_EQ(baseload_text(baseloads[1]).rfind("idle power (baseload), external meter over ", 0), 0u);

  const std::string status = meter_status_text(session.meters());
  EXPECT_EQ(status.rfind("meter ina: ", 0), 0u) << status;
  EXPECT_NE(status.find(" readings, "), std::string::npos) << status;
  const std::string energy = energy_text(session.energy(span->first, span->second), session.meters());
  EXPECT_NE(energy.find("\n  alignment: meter clock "), std::string::npos) << energy;
  EXPECT_NE(energy.find("offset vs onboard total: "), std::string::npos) << energy;
}

}  // namespace
}  // namespace jetchar::jetson::measurement
