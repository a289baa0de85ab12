// End-to-end: the real reader (Boost.Asio serial_port) against each protocol's simulator over a
// real pty pair. Every wait has a deadline so a broken reader fails instead of hanging CI.
#include "jetson/meters/serial_meter_reader.h"

#include <gtest/gtest.h>
#include <cmath>
#include <optional>
#include <thread>

#include "jetson/energy/energy_integrator.h"
#include "jetson/meters/meter_simulator.h"
#include "jetson/meters/um_protocol.h"
#include "tests/support/returns.h"
#include "tests/support/temp_dir.h"

namespace jetchar::jetson::meters {
namespace {

using namespace std::chrono_literals;

struct ProtocolCase {
  std::string protocol;
  std::chrono::nanoseconds interval;
  double voltage_mv;
  bool fragment;
};

std::string protocol_case_name(const ::testing::TestParamInfo<ProtocolCase>& info) { return info.param.protocol; }
// Keeps ctest's test names readable (gtest would print the struct's bytes).
void PrintTo(const ProtocolCase& c, std::ostream* os) { *os << c.protocol; }

class SerialMeterReaderPty : public ::testing::TestWithParam<ProtocolCase> {};

TEST_P(SerialMeterReaderPty, ReadsTheTraceAndItsEnergyEndToEnd) {
  const ProtocolCase& c = GetParam();
  MeterSimulatorOptions sim_options;
  sim_options.interval = c.interval;
  sim_options.fragment = c.fragment;
  MeterSimulator sim(c.protocol, SyntheticPowerTrace::standard(c.voltage_mv), sim_options);
  sim.start();
  SerialReaderOptions options;
  options.device = sim.device_path();
  SerialMeterReader reader(make_meter_protocol(c.protocol, MeterOptions{c.interval}), options);
  reader.start();

  // 2.4 s covers the idle, ramp, burst and step parts of the standard trace.
  const auto interval_ms = std::chrono::duration_cast<std::chrono::milliseconds>(c.interval).count();
  const std::uint64_t wanted = static_cast<std::uint64_t>(2400 / interval_ms);
  ASSERT_TRUE(reader.wait_for_readings(wanted, 6s)) << "only " << reader.status().readings << " readings";
  reader.stop();
  std::vector<MeterReading> readings;
  reader.drain(readings);
  ASSERT_GE(readings.size(), wanted);

  // Values: the supply voltage arrives exactly (within the meter's resolution).
  std::size_t with_power = 0;
  for (const auto& r : readings) {
    if (!r.power_mw) continue;
    ++with_power;
    ASSERT_TRUE(r.voltage_mv);
    EXPECT_NEAR(*r.voltage_mv, c.voltage_mv, 10.0);
    EXPECT_GE(*r.power_mw, 2900.0);
    EXPECT_LE(*r.power_mw, 9100.0);
    EXPECT_EQ(r.is_average, reader.protocol().reports_averages());
  }
  EXPECT_GE(with_power + 2, readings.size());

  // Pair the readings with what the simulator served, in order: every reading must be a served
  // value (within the protocol's resolution), none lost or invented in between. Wall-clock
  // receive times follow the machine's scheduling (a loaded CI machine delays a UM reply by tens
  // of milliseconds), so energy is checked on the times the simulator says the values stand for.
  const auto served = sim.served();
  std::vector<const MeterReading*> got;
  for (const auto& r : readings) {
    if (r.power_mw) got.push_back(&r);
  }
  ASSERT_GE(served.size(), got.size());
  const double resolution_mw = c.protocol == "wattsup" ? 51.0 : 1.0;
  const auto matches = [&](std::size_t d) {
    for (std::size_t i = 0; i < got.size(); ++i) {
      const double tolerance = resolution_mw + 1e-4 * served[d + i].power_mw;
      if (std::abs(*got[i]->power_mw - served[d + i].power_mw) > tolerance) return false;
    }
    return true;
  };
  std::optional<std::size_t> offset;
  for (std::size_t d = 0; d + got.size() <= served.size() && !offset; ++d) {
    if (matches(d)) offset = d;
  }
  ASSERT_TRUE(offset) << c.protocol << ": the " << got.size() << " readings are not the " << served.size()
                      << " served values in order";
  for (std::size_t i = 0; i < got.size(); ++i) {
    // Causality: nothing arrives before the moment it stands for.
    EXPECT_GE(got[i]->host_time_ns, served[*offset + i].time_ns) << i;
  }

  // Energy of the readings on the served time base over [a, b] (whole meter intervals), against
  // the trace's exact energy. The method's own discretization error (trapezoid over point samples
  // of a piecewise-linear trace; rectangle over interval averages, exact for back-to-back
  // intervals) is computed from the trace at the same times; rounding adds ≤ resolution × (b − a).
  const auto method =
      reader.protocol().reports_averages() ? energy::Integration::kBackwardRectangle : energy::Integration::kTrapezoid;
  energy::PowerTrace measured({{"meter", energy::RailRole::kBoardInput}});
  energy::PowerTrace reference({{"meter", energy::RailRole::kBoardInput}});
  for (std::size_t i = 0; i < got.size(); ++i) {
    const auto& s = served[*offset + i];
    measured.append(s.time_ns, {got[i]->power_mw});
    const std::int64_t t = s.time_ns - sim.start_ns();
    reference.append(s.time_ns,
                     {reader.protocol().reports_averages() ? sim.trace().average_mw(t - c.interval.count(), t)
                                                           : sim.trace().power_mw(t)});
  }
  ASSERT_GE(measured.size(), 6u);
  const std::int64_t a = measured.time_ns(2);
  const std::int64_t b = measured.time_ns(measured.size() - 1);
  const auto e = energy::integrate(measured, 0, a, b, method);
  const auto r = energy::integrate(reference, 0, a, b, method);
  ASSERT_TRUE(e.energy_mj);
  ASSERT_TRUE(r.energy_mj);
  const double exact = sim.trace().energy_mj(a - sim.start_ns(), b - sim.start_ns());
  const double discretization = std::abs(*r.energy_mj - exact);
  const double rounding = (resolution_mw + 1e-4 * 9000.0) * static_cast<double>(b - a) / 1e9;
  EXPECT_NEAR(*e.energy_mj, exact, discretization + rounding)
      << c.protocol << " window " << static_cast<double>(b - a) / 1e6 << " ms, discretization " << discretization
      << " mJ";
  EXPECT_LT(discretization + rounding, 0.02 * exact) << "the comparison must mean something";
  EXPECT_EQ(reader.status().protocol.bad_frames, 0u);
  // What the simulator writes between frames (line ends, a banner) is not damage: no garbage, and
  // no gap blamed on it while readings arrive on time.
  EXPECT_EQ(reader.status().protocol.garbage_bytes, 0u);
  for (const auto& gap : reader.gaps()) EXPECT_EQ(gap.reason.find("garbage"), std::string::npos) << gap.reason;
}

INSTANTIATE_TEST_SUITE_P(Protocols, SerialMeterReaderPty,
                         ::testing::Values(ProtocolCase{"wattsup", 100ms, 230000, false},
                                           ProtocolCase{"wt300", 100ms, 19000, false},
                                           ProtocolCase{"um25c", 20ms, 5000, true},
                                           ProtocolCase{"um34c", 20ms, 5000, false},
                                           ProtocolCase{"ina", 10ms, 19000, false}),
                         protocol_case_name);

class SerialMeterReaderFaults : public ::testing::TestWithParam<ProtocolCase> {};

TEST_P(SerialMeterReaderFaults, SurvivesGarbageAndDisconnectAndReconnects) {
  const ProtocolCase& c = GetParam();
  testing::TempDir dir;
  MeterSimulatorOptions sim_options;
  sim_options.interval = c.interval;
  sim_options.link_path = dir.path() / "ttyMETER0";
  MeterSimulator sim(c.protocol, SyntheticPowerTrace::standard(c.voltage_mv), sim_options);
  sim.start();
  SerialReaderOptions options;
  options.device = sim.device_path();
  options.backoff_initial = 20ms;
  options.backoff_max = 100ms;
  SerialMeterReader reader(make_meter_protocol(c.protocol, MeterOptions{c.interval}), options);
  reader.start();
  ASSERT_TRUE(reader.wait_for_readings(3, 3s));

  // Garbage and a cut-off frame: the reader resynchronises and keeps going.
  sim.inject(std::string("\x01\x02garbage\r\n#d,-,18,12", 20));
  sim.inject(std::string("\x09\xC9\x00\x01", 4));
  sim.inject("1,2,abc\r\n");
  if (const auto model = um_model_from_name(c.protocol)) {
    // A frame of the right model cut off after 60 of its 130 bytes (a Bluetooth drop-out).
    UmFrame frame;
    frame.model = *model;
    frame.voltage_mv = 5000;
    frame.current_ma = 800;
    frame.power_mw = 4000;
    const auto bytes = encode_um_frame(frame);
    sim.inject(std::string_view(reinterpret_cast<const char*>(bytes.data()), 60));
  }
  std::uint64_t before = reader.status().readings;
  ASSERT_TRUE(reader.wait_for_readings(before + 3, 3s));
  EXPECT_GT(reader.status().protocol.garbage_bytes + reader.status().protocol.bad_frames, 0u);

  // Unplug: the device path disappears; draining never blocks meanwhile.
  sim.disconnect();
  std::this_thread::sleep_for(250ms);
  std::vector<MeterReading> readings;
  EXPECT_TRUE(jetchar::testing::returns([&] { reader.drain(readings); })) << "drain() waited for the unplugged meter";
  EXPECT_FALSE(reader.status().connected);
  EXPECT_GT(reader.status().failed_opens, 0u);

  // Plug back in: a new pty behind the same path; the reader finds it with backoff.
  sim.reconnect();
  ASSERT_TRUE(reader.wait_for_opens(2, 3s));
  before = reader.status().readings;
  ASSERT_TRUE(reader.wait_for_readings(before + 3, 3s));
  reader.stop();
  const auto gaps = reader.gaps();
  bool disconnect_gap = false;
  bool garbage_gap = false;
  for (const auto& gap : gaps) {
    EXPECT_LE(gap.begin_ns, gap.end_ns);
    if (gap.reason.find("disconnected") != std::string::npos) {
      disconnect_gap = true;
      EXPECT_GE(gap.end_ns - gap.begin_ns, 200'000'000);
    }
    if (gap.reason.find("garbage") != std::string::npos) garbage_gap = true;
  }
  EXPECT_TRUE(disconnect_gap);
  // UM noise without a model id is skipped silently (counted as garbage bytes, no gap).
  EXPECT_TRUE(garbage_gap || c.protocol.rfind("um", 0) == 0);
}

INSTANTIATE_TEST_SUITE_P(Protocols, SerialMeterReaderFaults,
                         ::testing::Values(ProtocolCase{"wattsup", 100ms, 230000, false},
                                           ProtocolCase{"wt300", 100ms, 19000, false},
                                           ProtocolCase{"um25c", 20ms, 5000, false},
                                           ProtocolCase{"um34c", 20ms, 5000, true},
                                           ProtocolCase{"ina", 10ms, 19000, false}),
                         protocol_case_name);

TEST(SerialMeterReader, MissingDeviceKeepsRetryingWithoutBlocking) {
  testing::TempDir dir;
  SerialReaderOptions options;
  options.device = dir.path() / "no-such-tty";
  options.backoff_initial = 10ms;
  options.backoff_max = 40ms;
  SerialMeterReader reader(make_meter_protocol("ina"), options);
  // The device never appears: start() returns and the reader retries on its own thread.
  EXPECT_TRUE(jetchar::testing::returns([&] { reader.start(); })) << "start() waited for the device";
  std::this_thread::sleep_for(200ms);
  const auto status = reader.status();
  EXPECT_FALSE(status.connected);
  EXPECT_GE(status.failed_opens, 3u);
  EXPECT_NE(status.last_error.find("no-such-tty"), std::string::npos);
  reader.stop();
}

TEST(SerialMeterReader, UnknownProtocolAndBadRateAreInputErrors) {
  EXPECT_THROW(make_meter_protocol("fluke"), std::invalid_argument);
  EXPECT_THROW(make_meter_protocol("wt300", MeterOptions{std::chrono::milliseconds(300)}), std::invalid_argument);
  EXPECT_THROW(MeterSimulator("fluke", SyntheticPowerTrace::standard(5000)), std::invalid_argument);
}

}  // namespace
}  // namespace jetchar::jetson::meters
