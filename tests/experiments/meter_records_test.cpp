// `jetchar monitor` and a sweep's run measure through the same session
// (jetson/measurement/measurement_session.h): for one stream they report the same joules. The
// monitor reads MeasurementSession::energy; the sweep records the run's windows through
// PowerSession::energy and meter_energy_records. Here one session on a simulated board with a
// simulated INA meter is read both ways.
#include "experiments/meter_records.h"

#include <gtest/gtest.h>

#include <chrono>
#include <thread>

#include "jetson/measurement/measurement_session.h"
#include "jetson/meters/meter_simulator.h"
#include "jetson/meters/synthetic_power_trace.h"
#include "jetson/simulated/simulated_board.h"

namespace jetchar::experiments {
namespace {

using namespace std::chrono_literals;
namespace measurement = jetson::measurement;

TEST(MeterRecords, MonitorAndSweepGetTheSameEnergyFromOneStream) {
  jetson::meters::MeterSimulatorOptions meter_options;
  meter_options.interval = 10ms;  // the ina protocol's nominal interval
  jetson::meters::MeterSimulator meter("ina", jetson::meters::SyntheticPowerTrace::standard(5000), meter_options);
  meter.start();
  jetson::SimulatedBoard board("agx-orin-r36");
  google::protobuf::RepeatedPtrField<proto::MeterSpec> specs;
  specs.Add()->set_protocol("ina");
  specs.Mutable(0)->set_device(meter.device_path());

  measurement::MeasurementOptions options;
  options.sample_rate_hz = 100;
  options.meters = meter_specs(specs);
  options.onboard_modelled = true;
  measurement::MeasurementSession session(board.root(), options);
  session.start();
  auto& windows = session.onboard().windows();
  const auto run = windows.begin("run", jetson::energy::WindowKind::kRun);
  std::this_thread::sleep_for(400ms);
  windows.end("run");
  session.stop();
  const auto& window = windows.windows()[run];
  ASSERT_TRUE(window.end_ns);

  // The monitor's figures.
  const auto monitor = session.energy(window.begin_ns, *window.end_ns);
  ASSERT_TRUE(monitor.onboard);
  ASSERT_TRUE(monitor.onboard->total_energy_mj);
  ASSERT_EQ(monitor.meters.size(), 1u);
  // The sweep's records of the same window.
  const auto onboard = session.onboard().energy(window);
  const auto records = meter_energy_records(session.meters(), window.begin_ns, *window.end_ns);
  ASSERT_EQ(records.size(), 1u);

  EXPECT_EQ(records[0].meter(), "ina:" + meter.device_path());
  ASSERT_TRUE(onboard.total_energy_mj);
  EXPECT_DOUBLE_EQ(*onboard.total_energy_mj, *monitor.onboard->total_energy_mj);
  // A loaded machine may starve the reader into a gap: then neither has a whole meter energy.
  const auto whole = monitor.meters[0].whole_energy_mj();
  EXPECT_EQ(records[0].has_energy_j(), whole.has_value()) << records[0].ShortDebugString();
  if (!whole) GTEST_SKIP() << "the meter had a gap inside the window (" << records[0].gap_s() << " s)";
  EXPECT_DOUBLE_EQ(records[0].energy_j(), *whole / 1000.0);
  // And it is the meter's power: the standard trace lies between 3 W and 9 W.
  EXPECT_GE(records[0].average_power_w(), 2.9);
  EXPECT_LE(records[0].average_power_w(), 9.1);
  // On a simulated board the meter is never correlated with the modelled power.
  EXPECT_EQ(session.meters().alignment(0).describe().rfind("clock fit", 0), 0u)
      << session.meters().alignment(0).describe();
  EXPECT_EQ(session.meters().alignment(0).offset_source, measurement::OffsetSource::kNone);
  EXPECT_NE(session.meters().alignment(0).offset_note.find("modelled"), std::string::npos);
}

}  // namespace
}  // namespace jetchar::experiments
